#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"
#include "core/runs/launchrequest.h"
#include "core/runs/sweepgrid.h"

#include <QList>
#include <QString>
#include <optional>

namespace torchdeck {

// What both fronts share to send a sweep (`torchdeck sweep`, the window's Sweep dialog); the agent sends it
// (ClusterSession::submitSweep).

// One point as it is sent: its values as the run store keeps them ({"lr": "0.1"}) and its run's request.
struct SweepPointRequest {
    QString pointJson;
    LaunchRequest request;
};

// The point's values as JSON ({"nodes": "2"}), and the sweep's axes ([{"name", "values"}]).
QString sweepPointJson(const SweepPoint &point);
QString sweepAxesJson(const QList<SweepAxis> &axes);

// A point's job name: the sweep's, then each value ("ae.nodes2.tasks-per-node1"), in the characters a job name
// may hold, 64 at most.
QString sweepPointName(const QString &base, const SweepPoint &point);

// `spec` with one varied value set, as both fronts name them: nodes, tasks-per-node, gpus-per-node, cpus-per-task,
// time, partition (or queue), memory (or mem), account, env:NAME, or the bundled trainer's option --NAME.
// Nothing, with the reason in *error, for a value that is not a number where one is needed, or a trainer
// option on a custom command.
std::optional<JobSpec> specWithValue(JobSpec spec, const QString &name, const QString &value, QString *error);

// Why points with these previews (renderSubmission of each) cannot go as one job array; empty when they can.
QString arrayRefusal(const ClusterCaps &caps, const QList<SubmissionScript> &previews, int maxRunning);

} // namespace torchdeck
