#pragma once

#include "core/jobs/jobspecvalidation.h"
#include "core/profiles/clusterprofile.h"
#include "core/runs/launchrequest.h"
#include "core/runs/sweepgrid.h"
#include "core/runs/sweepsubmission.h"

#include <functional>

namespace torchdeck {

// A sweep before anything is sent, planned once for both fronts (`torchdeck sweep`, the window's Sweep dialog):
// every point's run as it will be sent, its script checked against what the cluster offers, the node-hours it may
// take, and whether the points go as one job array. The agent sends the plan's points (ClusterSession::submitSweep).

inline constexpr int kMostSweepPoints = 500;

struct SweepPlanRequest {
    ClusterProfile profile;
    JobSpec base; // what every point shares; its name names the points
    QList<SweepAxis> axes;
    bool separateJobs = false; // a job per point was asked for
    int maxRunning = 0;        // an array's tasks at a time; 0: no limit
};

struct SweepPlanPoint {
    SweepPoint point;
    LaunchRequest request; // a run of its own (its id made here)
    SubmissionScript preview;
};

struct SweepPlan {
    QList<SweepPlanPoint> points;
    double nodeSeconds = 0; // nodes x wall time, summed; 0 where a point has no wall time
    QString problem;        // why nothing can be sent (a value, the grid, a point the cluster cannot run)
    int refused = 0;        // points the cluster cannot run (their scripts' errors in the problem)
    QString notArray;       // why the points cannot go as one job array; empty: they go as one
    bool ok() const { return problem.isEmpty(); }
    bool asArray() const { return notArray.isEmpty(); }
    // What the agent is sent: each point's values and request.
    QList<SweepPointRequest> requests() const;
};

// `preview` renders a point's request as it will be sent (AgentClient::previewSubmission); `formatErrors` says a
// point's problems in the front's words (the terminal names its options).
SweepPlan planSweep(const SweepPlanRequest &request,
                    const std::function<SubmissionScript(const LaunchRequest &)> &preview,
                    const std::function<QString(const QList<JobSpecError> &)> &formatErrors = formatJobSpecErrors);

} // namespace torchdeck
