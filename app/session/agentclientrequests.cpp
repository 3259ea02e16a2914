// AgentClient's requests by name: each a request of the agent's protocol (docs/agent.md), with its arguments.
#include "core/agent/agentcodec.h"
#include "core/jobs/runlayout.h"
#include "session/agentclient.h"
#include "session/clustersession.h"
#include "session/sessionoperation.h"

namespace torchdeck {

namespace {
const QString kCluster = QStringLiteral("cluster");
} // namespace

SessionOperation *AgentClient::open(const QString &cluster)
{
    return request(QStringLiteral("open"), {{kCluster, cluster}});
}

SessionOperation *AgentClient::refresh(const QString &cluster, const QStringList &runIds, int maxAgeMs)
{
    return request(QStringLiteral("refresh"), {{kCluster, cluster},
                                               {QStringLiteral("runs"), QCborArray::fromStringList(runIds)},
                                               {QStringLiteral("max_age_ms"), maxAgeMs}});
}

SessionOperation *AgentClient::submit(const LaunchRequest &request, int chain)
{
    return this->request(QStringLiteral("submit"), {{kCluster, request.profile.name},
                                                    {QStringLiteral("request"), launchRequestToCbor(request)},
                                                    {QStringLiteral("chain"), chain}});
}

SessionOperation *AgentClient::submitSweep(const SweepRecord &sweep, const QList<SweepPointRequest> &points,
                                           bool asArray, int maxRunning)
{
    QCborArray encoded;
    for (const SweepPointRequest &point : points)
        encoded.append(QCborMap{{QStringLiteral("request"), launchRequestToCbor(point.request)},
                                {QStringLiteral("point"), point.pointJson}});
    return request(QStringLiteral("submit_sweep"),
                   {{kCluster, sweep.cluster},
                    {QStringLiteral("sweep"), QCborMap{{QStringLiteral("id"), sweep.id},
                                                       {QStringLiteral("name"), sweep.name},
                                                       {QStringLiteral("axes_json"), sweep.axesJson}}},
                    {QStringLiteral("points"), encoded},
                    {QStringLiteral("array"), asArray},
                    {QStringLiteral("max_running"), maxRunning}});
}

SessionOperation *AgentClient::resume(const QString &cluster, const QString &runId, const ResumeFrom &from,
                                      const QString &epochs)
{
    return request(QStringLiteral("resume"), {{kCluster, cluster},
                                              {QStringLiteral("run"), runId},
                                              {QStringLiteral("from"), from.text()},
                                              {QStringLiteral("epochs"), epochs}});
}

SessionOperation *AgentClient::cancel(const QString &cluster, const QStringList &runIds)
{
    return request(QStringLiteral("cancel"),
                   {{kCluster, cluster}, {QStringLiteral("runs"), QCborArray::fromStringList(runIds)}});
}

SessionOperation *AgentClient::requeue(const QString &cluster, const QString &runId)
{
    return request(QStringLiteral("requeue"), {{kCluster, cluster}, {QStringLiteral("run"), runId}});
}

SessionOperation *AgentClient::setAutoRestart(const QString &cluster, const QString &runId, bool enabled)
{
    return request(QStringLiteral("auto_restart"),
                   {{kCluster, cluster}, {QStringLiteral("run"), runId}, {QStringLiteral("enabled"), enabled}});
}

SessionOperation *AgentClient::presentCheckpoints(const QString &cluster, const QString &runId)
{
    return request(QStringLiteral("checkpoints"), {{kCluster, cluster}, {QStringLiteral("run"), runId}});
}

SessionOperation *AgentClient::deleteCheckpoints(const QString &cluster, const QString &runId, const QStringList &names)
{
    return request(QStringLiteral("delete_checkpoints"),
                   {{kCluster, cluster},
                    {QStringLiteral("run"), runId},
                    {QStringLiteral("names"), QCborArray::fromStringList(names)}});
}

SessionOperation *AgentClient::startForward(const QString &cluster, const QString &runId, int remotePort, int localPort)
{
    return request(QStringLiteral("forward"), {{kCluster, cluster},
                                               {QStringLiteral("run"), runId},
                                               {QStringLiteral("port"), remotePort},
                                               {QStringLiteral("local_port"), localPort}});
}

SessionOperation *AgentClient::forwards()
{
    return request(QStringLiteral("forwards"));
}

SessionOperation *AgentClient::stopForwards(int localPort, const QString &runId)
{
    return request(QStringLiteral("forward_stop"),
                   {{QStringLiteral("local_port"), localPort}, {QStringLiteral("run"), runId}});
}

SessionOperation *AgentClient::readFile(const QString &cluster, const QString &path, int lastLines)
{
    return request(QStringLiteral("read_file"),
                   {{kCluster, cluster}, {QStringLiteral("path"), path}, {QStringLiteral("lines"), lastLines}});
}

SessionOperation *AgentClient::followFile(const QString &cluster, const QString &path, qint64 offset, qint64 lastBytes)
{
    return request(QStringLiteral("follow_file"), {{kCluster, cluster},
                                                   {QStringLiteral("path"), path},
                                                   {QStringLiteral("offset"), offset},
                                                   {QStringLiteral("last_bytes"), lastBytes}});
}

SessionOperation *AgentClient::check(const QString &cluster, const ClusterCheckSettings &settings)
{
    return request(QStringLiteral("check"),
                   {{kCluster, cluster}, {QStringLiteral("settings"), checkSettingsToCbor(settings)}});
}

SessionOperation *AgentClient::codeSnapshots(const QString &cluster)
{
    return request(QStringLiteral("code_snapshots"), {{kCluster, cluster}});
}

SessionOperation *AgentClient::pruneCodeSnapshots(const QString &cluster)
{
    return request(QStringLiteral("prune_code"), {{kCluster, cluster}});
}

SessionOperation *AgentClient::workDirectoryOf(const QString &cluster)
{
    SessionOperation *operation = request(QStringLiteral("work_directory"), {{kCluster, cluster}});
    connect(operation, &SessionOperation::finished, this, [this, cluster](const QCborValue &result) {
        const QString directory = result.toMap().value(QStringLiteral("directory")).toString();
        if (!directory.isEmpty() && workDirectory(cluster).isEmpty()) {
            m_clusters[cluster].workDirectory = directory;
            emit workDirectoryKnown(cluster, directory);
        }
    });
    return operation;
}

SessionOperation *AgentClient::status()
{
    return request(QStringLiteral("status"));
}

SessionOperation *AgentClient::stopAgent()
{
    return request(QStringLiteral("stop"));
}

SessionOperation *AgentClient::profilesChanged()
{
    return request(QStringLiteral("profiles_changed"));
}

void AgentClient::setPollInterval(int ms)
{
    m_options.pollMs = ms; // also after attaching again
    request(QStringLiteral("poll"), {{QStringLiteral("ms"), ms}});
}

void AgentClient::lookAt(const QString &cluster, const QStringList &runIds)
{
    if (m_looking.value(cluster) == runIds && m_looking.contains(cluster))
        return;
    if (runIds.isEmpty())
        m_looking.remove(cluster);
    else
        m_looking.insert(cluster, runIds);
    request(QStringLiteral("look"),
            {{kCluster, cluster}, {QStringLiteral("runs"), QCborArray::fromStringList(runIds)}});
}

SessionOperation *AgentClient::sampleResources(const QString &cluster, const QStringList &runIds)
{
    return request(QStringLiteral("resources"),
                   {{kCluster, cluster}, {QStringLiteral("runs"), QCborArray::fromStringList(runIds)}});
}

SessionOperation *AgentClient::stackDump(const QString &cluster, const QString &runId)
{
    return request(QStringLiteral("stack_dump"), {{kCluster, cluster}, {QStringLiteral("run"), runId}});
}

void AgentClient::answerHostKey(const QString &cluster, bool trust)
{
    request(QStringLiteral("answer_host_key"), {{kCluster, cluster}, {QStringLiteral("trust"), trust}});
}

void AgentClient::answerCredential(const QString &cluster, std::optional<QString> answer)
{
    QCborMap args{{kCluster, cluster}};
    if (answer)
        args.insert(QStringLiteral("answer"), *answer);
    request(QStringLiteral("answer_credential"), args);
    if (answer)
        wipe(*answer);
}

SubmissionScript AgentClient::previewSubmission(const LaunchRequest &request) const
{
    const QString known = workDirectory(request.profile.name);
    const QString work = known.isEmpty() ? kUnknownWorkDirectory : known;
    // Where the agent's deployment puts the bundled trainer, unless the profile names a prebuilt one.
    const QString trainer = !request.profile.trainerBinary.isEmpty()
                                ? request.profile.trainerBinary
                                : WorkLayout{work}.trainerBinary(ClusterSession::embeddedTrainerHash());
    return renderSubmission(request, work, trainer);
}

} // namespace torchdeck
