// AgentClient's calls: each a request of the protocol's table (core/agent/agentops.h), with its typed arguments.
#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"

namespace torchdeck {

SessionOperation *AgentClient::open(const QString &cluster)
{
    return call<agent::Open>({cluster});
}

SessionOperation *AgentClient::refresh(const QString &cluster, const QStringList &runIds, int maxAgeMs)
{
    return call<agent::Refresh>({cluster, runIds, maxAgeMs});
}

SessionOperation *AgentClient::submit(const LaunchRequest &request, int chain)
{
    return call<agent::Submit>({request.profile.name, request, chain});
}

SessionOperation *AgentClient::submitSweep(const SweepRecord &sweep, const QList<SweepPointRequest> &points,
                                           bool asArray, int maxRunning)
{
    agent::SubmitSweep::Request request{sweep.cluster, sweep.id, sweep.name, sweep.axesJson, {}, asArray, maxRunning};
    for (const SweepPointRequest &point : points)
        request.points.append({point.pointJson, point.request});
    return call<agent::SubmitSweep>(request);
}

SessionOperation *AgentClient::resume(const QString &cluster, const QString &runId, const ResumeFrom &from,
                                      const QString &epochs)
{
    return call<agent::Resume>({cluster, runId, from.text(), epochs});
}

SessionOperation *AgentClient::continueOn(const QString &cluster, const QString &runId, const ResumeFrom &from,
                                          const QString &epochs)
{
    return call<agent::ContinueOn>({cluster, runId, from.text(), epochs});
}

SessionOperation *AgentClient::resumeSweep(const QString &cluster, const QString &sweepId)
{
    return call<agent::ResumeSweep>({cluster, sweepId});
}

SessionOperation *AgentClient::deleteSweep(const QString &cluster, const QString &sweepId, bool refreshFirst)
{
    return call<agent::DeleteSweep>({cluster, sweepId, refreshFirst});
}

SessionOperation *AgentClient::cancel(const QString &cluster, const QStringList &runIds)
{
    return call<agent::Cancel>({cluster, runIds});
}

SessionOperation *AgentClient::requeue(const QString &cluster, const QString &runId)
{
    return call<agent::Requeue>({cluster, runId});
}

SessionOperation *AgentClient::setAutoRestart(const QString &cluster, const QString &runId, bool enabled)
{
    return call<agent::AutoRestart>({cluster, runId, enabled});
}

SessionOperation *AgentClient::presentCheckpoints(const QString &cluster, const QString &runId)
{
    return call<agent::Checkpoints>({cluster, runId});
}

SessionOperation *AgentClient::annotateRun(const QString &cluster, const QString &runId,
                                           const std::optional<QString> &name, const std::optional<QString> &note,
                                           const QStringList &addTags, const QStringList &removeTags)
{
    return call<agent::AnnotateRun>({cluster, runId, name, note, addTags, removeTags});
}

SessionOperation *AgentClient::jobCommand(const QString &cluster, const QString &runId, const QString &node,
                                          const QString &command)
{
    return call<agent::JobCommand>({cluster, runId, node, command});
}

SessionOperation *AgentClient::jobShell(const QString &cluster, const QString &runId, const QString &node, int cols,
                                        int rows)
{
    return call<agent::JobShell>({cluster, runId, node, cols, rows});
}

SessionOperation *AgentClient::runFiles(const QString &cluster, const QString &runId, const QString &path)
{
    return call<agent::RunFiles>({cluster, runId, path});
}

SessionOperation *AgentClient::pull(const QString &cluster, const QString &runId, const QStringList &files,
                                    const QString &checkpoint, const QString &to)
{
    return call<agent::Pull>({cluster, runId, files, checkpoint, to});
}

SessionOperation *AgentClient::deleteRuns(const QString &cluster, const QStringList &runIds, bool remote, bool dryRun)
{
    return call<agent::DeleteRuns>({cluster, runIds, remote, dryRun});
}

SessionOperation *AgentClient::deleteCheckpoints(const QString &cluster, const QString &runId, const QStringList &names)
{
    return call<agent::DeleteCheckpoints>({cluster, runId, names});
}

SessionOperation *AgentClient::startForward(const QString &cluster, const QString &runId, int remotePort, int localPort)
{
    return call<agent::Forward>({cluster, runId, remotePort, localPort});
}

SessionOperation *AgentClient::forwards()
{
    return call<agent::Forwards>({});
}

SessionOperation *AgentClient::stopForwards(int localPort, const QString &runId)
{
    return call<agent::ForwardStop>({localPort, runId});
}

SessionOperation *AgentClient::readFile(const QString &cluster, const QString &path, int lastLines)
{
    return call<agent::ReadFile>({cluster, path, lastLines});
}

SessionOperation *AgentClient::followFile(const QString &cluster, const QString &path, qint64 offset, qint64 lastBytes)
{
    return call<agent::FollowFile>({cluster, path, offset, lastBytes});
}

SessionOperation *AgentClient::check(const QString &cluster, const ClusterCheckSettings &settings)
{
    return call<agent::Check>({cluster, settings});
}

SessionOperation *AgentClient::codeSnapshots(const QString &cluster)
{
    return call<agent::CodeSnapshots>({cluster});
}

SessionOperation *AgentClient::pruneCodeSnapshots(const QString &cluster)
{
    return call<agent::PruneCode>({cluster});
}

SessionOperation *AgentClient::workDirectoryOf(const QString &cluster)
{
    SessionOperation *operation = call<agent::WorkDirectory>({cluster});
    onReply<agent::WorkDirectory>(operation, this, [this, cluster](const agent::WorkDirectory::Reply &reply) {
        if (!reply.directory.isEmpty() && workDirectory(cluster).isEmpty()) {
            m_clusters[cluster].workDirectory = reply.directory;
            emit workDirectoryKnown(cluster, reply.directory);
        }
    });
    return operation;
}

SessionOperation *AgentClient::status()
{
    return call<agent::Status>({});
}

SessionOperation *AgentClient::stopAgent()
{
    return call<agent::Stop>({});
}

SessionOperation *AgentClient::profilesChanged()
{
    return call<agent::ProfilesChanged>({});
}

void AgentClient::setPollInterval(int ms)
{
    m_options.pollMs = ms; // also after attaching again
    call<agent::Poll>({ms});
}

void AgentClient::lookAt(const QString &cluster, const QStringList &runIds)
{
    if (m_looking.value(cluster) == runIds && m_looking.contains(cluster))
        return;
    if (runIds.isEmpty())
        m_looking.remove(cluster);
    else
        m_looking.insert(cluster, runIds);
    call<agent::Look>({cluster, runIds});
}

SessionOperation *AgentClient::sampleResources(const QString &cluster, const QStringList &runIds)
{
    return call<agent::Resources>({cluster, runIds});
}

SessionOperation *AgentClient::estimateStart(const QString &cluster, const QString &script)
{
    return call<agent::EstimateStart>({cluster, script});
}

SessionOperation *AgentClient::stackDump(const QString &cluster, const QString &runId)
{
    return call<agent::StackDump>({cluster, runId});
}

void AgentClient::answerHostKey(const QString &cluster, bool trust)
{
    call<agent::AnswerHostKey>({cluster, trust});
}

void AgentClient::answerCredential(const QString &cluster, std::optional<QString> answer)
{
    call<agent::AnswerCredential>({cluster, answer});
    if (answer)
        wipe(*answer);
}

SubmissionScript AgentClient::previewSubmission(const LaunchRequest &request) const
{
    const QString known = workDirectory(request.profile.name);
    const QString work = known.isEmpty() ? kUnknownWorkDirectory : known;
    return renderSubmission(request, work, trainerBinaryOn(request.profile, work));
}

} // namespace torchdeck
