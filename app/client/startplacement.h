#pragma once

#include "core/agent/agentops.h"
#include "core/runs/launchrequest.h"
#include "core/runs/startestimate.h"

#include <QObject>
#include <functional>

namespace torchdeck {

class AgentClient;

// The agent's answer for one cluster (agent::EstimateStart) as the choice reads it.
StartEstimate startEstimateOf(const QString &cluster, const agent::EstimateStart::Reply &reply);

// A new run offered to several clusters, from the window ("Any of…"): each candidate connected (its work
// directory known, so its script names every path), its script rendered and checked against its shape, its
// scheduler asked when the job would start (agent::EstimateStart), one after the other; then the soonest chosen
// (core's soonestStart). A candidate that cannot run the job, or cannot be reached, is skipped with its reason.
class StartPlacement : public QObject {
    Q_OBJECT
public:
    StartPlacement(AgentClient *agent, QStringList clusters, std::function<LaunchRequest(const QString &)> requestFor,
                   QObject *parent = nullptr);
    void start();

signals:
    void asking(const QString &cluster);
    void placed(const torchdeck::Placement &placement); // chosen is empty when none can run the job

private:
    void askNext();
    void skip(const QString &why);
    void note(const StartEstimate &estimate);

    AgentClient *m_agent;
    QStringList m_clusters;
    std::function<LaunchRequest(const QString &)> m_requestFor;
    Placement m_placement;
};

} // namespace torchdeck
