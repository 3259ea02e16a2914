#include "client/startplacement.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/jobspecvalidation.h"

namespace torchdeck {

StartEstimate startEstimateOf(const QString &cluster, const agent::EstimateStart::Reply &reply)
{
    StartEstimate estimate;
    estimate.cluster = cluster;
    estimate.skipped = reply.skipped;
    estimate.said = reply.said;
    if (reply.start > 0)
        estimate.start = QDateTime::fromMSecsSinceEpoch(reply.start, Qt::UTC);
    return estimate;
}

StartPlacement::StartPlacement(AgentClient *agent, QStringList clusters,
                               std::function<LaunchRequest(const QString &)> requestFor, QObject *parent)
    : QObject(parent)
    , m_agent(agent)
    , m_clusters(std::move(clusters))
    , m_requestFor(std::move(requestFor))
{
}

void StartPlacement::start()
{
    m_placement = {};
    m_placement.asked = QDateTime::currentDateTimeUtc();
    askNext();
}

void StartPlacement::note(const StartEstimate &estimate)
{
    m_placement.estimates.append(estimate);
    askNext();
}

void StartPlacement::skip(const QString &why)
{
    StartEstimate estimate;
    estimate.cluster = m_clusters.at(m_placement.estimates.size());
    estimate.skipped = true;
    estimate.said = why;
    note(estimate);
}

void StartPlacement::askNext()
{
    if (m_placement.estimates.size() >= m_clusters.size()) {
        const qsizetype soonest = soonestStart(m_placement.estimates);
        m_placement.chosen = soonest >= 0 ? m_placement.estimates.at(soonest).cluster : QString();
        return emit placed(m_placement);
    }
    const QString cluster = m_clusters.at(m_placement.estimates.size());
    emit asking(cluster);
    // Connected, and its work directory known: the script then names every path, as it will be sent.
    SessionOperation *work = m_agent->workDirectoryOf(cluster);
    connect(work, &SessionOperation::failed, this, [this](const QString &error) { skip(error); });
    connect(work, &SessionOperation::finished, this, [this, cluster] {
        const SubmissionScript rendered = m_agent->previewSubmission(m_requestFor(cluster));
        if (!rendered.ok())
            return skip(describeJobSpecErrors(rendered.errors));
        SessionOperation *asked = m_agent->estimateStart(cluster, rendered.script);
        connect(asked, &SessionOperation::failed, this, [this](const QString &error) { skip(error); });
        onReply<agent::EstimateStart>(asked, this, [this, cluster](const agent::EstimateStart::Reply &reply) {
            note(startEstimateOf(cluster, reply));
        });
    });
}

} // namespace torchdeck
