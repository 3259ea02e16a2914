#include "core/agent/agentcodec.h"

#include "core/agent/cborfields.h"
#include "core/coretr.h"

#include <QJsonObject>

namespace torchdeck {

namespace {
constexpr qint64 maxCount = qint64(1) << 53;
constexpr int maxEventsPerBatch = 1 << 20;

template <typename T> std::optional<T> finish(const CborFields &fields, T value, QString *error)
{
    if (fields.ok())
        return value;
    *error = fields.error();
    return std::nullopt;
}

void putNumber(QCborMap &map, const QString &key, double value)
{
    if (MetricEvent::has(value))
        map.insert(key, value);
}

void putCount(QCborMap &map, const QString &key, qint64 value)
{
    if (MetricEvent::has(value))
        map.insert(key, value);
}

void putText(QCborMap &map, const QString &key, const QString &value)
{
    if (!value.isEmpty())
        map.insert(key, value);
}

QCborMap metricEventToCbor(const MetricEvent &e)
{
    QCborMap m;
    m.insert(QStringLiteral("kind"), int(e.kind));
    m.insert(QStringLiteral("source"), int(e.source));
    m.insert(QStringLiteral("schema"), e.schema);
    putNumber(m, QStringLiteral("time"), e.time);
    putCount(m, QStringLiteral("epoch"), e.epoch);
    putCount(m, QStringLiteral("epochs"), e.epochs);
    putCount(m, QStringLiteral("step"), e.step);
    putCount(m, QStringLiteral("epoch_step"), e.epochStep);
    putCount(m, QStringLiteral("steps_per_epoch"), e.stepsPerEpoch);
    putNumber(m, QStringLiteral("loss"), e.loss);
    putNumber(m, QStringLiteral("lr"), e.lr);
    putNumber(m, QStringLiteral("samples_per_s"), e.samplesPerSecond);
    putNumber(m, QStringLiteral("val_loss"), e.valLoss);
    putNumber(m, QStringLiteral("val_accuracy"), e.valAccuracy);
    putNumber(m, QStringLiteral("seconds"), e.seconds);
    if (e.stepCounted)
        m.insert(QStringLiteral("step_counted"), true);
    if (e.epochFromZero)
        m.insert(QStringLiteral("epoch_from_zero"), true);
    if (!e.extras.isEmpty()) {
        QCborMap extras;
        for (const NamedValue &v : e.extras)
            extras.insert(v.name, v.value);
        m.insert(QStringLiteral("extras"), extras);
    }
    for (const auto &[key, values] : {std::pair{QStringLiteral("rank_compute"), &e.rankComputeSeconds},
                                      std::pair{QStringLiteral("rank_wait"), &e.rankWaitSeconds}}) {
        if (!values->isEmpty()) {
            QCborArray array;
            for (const double v : *values)
                array.append(v);
            m.insert(key, array);
        }
    }
    putText(m, QStringLiteral("path"), e.path);
    putCount(m, QStringLiteral("bytes"), e.bytes);
    putText(m, QStringLiteral("reason"), e.reason);
    if (e.kind == MetricEventKind::Start) {
        m.insert(QStringLiteral("world_size"), e.worldSize);
        putText(m, QStringLiteral("model"), e.model);
        putText(m, QStringLiteral("dataset"), e.dataset);
        m.insert(QStringLiteral("resumed"), e.resumed);
        putText(m, QStringLiteral("resume_path"), e.resumePath);
        putCount(m, QStringLiteral("resume_epoch"), e.resumeEpoch);
        putCount(m, QStringLiteral("resume_step"), e.resumeStep);
        m.insert(QStringLiteral("resume_skipped"), e.resumeSkipped);
    }
    if (e.kind == MetricEventKind::Stop) {
        m.insert(QStringLiteral("exit_code"), e.exitCode);
        putText(m, QStringLiteral("signal"), e.signal);
        putText(m, QStringLiteral("message"), e.message);
    }
    return m;
}

std::optional<MetricEvent> metricEventFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    MetricEvent e;
    e.kind = MetricEventKind(f.integer(QStringLiteral("kind"), 0, int(MetricEventKind::Resources)));
    e.source = MetricSource(f.integer(QStringLiteral("source"), 0, int(MetricSource::Resources)));
    e.schema = int(f.integer(QStringLiteral("schema"), 0, 1 << 20, 1));
    e.time = f.number(QStringLiteral("time"), kNoValue);
    e.epoch = f.integer(QStringLiteral("epoch"), 0, maxCount, kNoCount);
    e.epochs = f.integer(QStringLiteral("epochs"), 0, maxCount, kNoCount);
    e.step = f.integer(QStringLiteral("step"), 0, maxCount, kNoCount);
    e.epochStep = f.integer(QStringLiteral("epoch_step"), 0, maxCount, kNoCount);
    e.stepsPerEpoch = f.integer(QStringLiteral("steps_per_epoch"), 0, maxCount, kNoCount);
    e.loss = f.number(QStringLiteral("loss"), kNoValue);
    e.lr = f.number(QStringLiteral("lr"), kNoValue);
    e.samplesPerSecond = f.number(QStringLiteral("samples_per_s"), kNoValue);
    e.valLoss = f.number(QStringLiteral("val_loss"), kNoValue);
    e.valAccuracy = f.number(QStringLiteral("val_accuracy"), kNoValue);
    e.seconds = f.number(QStringLiteral("seconds"), kNoValue);
    e.stepCounted = f.flag(QStringLiteral("step_counted"));
    e.epochFromZero = f.flag(QStringLiteral("epoch_from_zero"));
    const QCborMap extras = f.map(QStringLiteral("extras"));
    for (auto it = extras.cbegin(); it != extras.cend(); ++it) {
        if (!it.key().isString() || !(it.value().isDouble() || it.value().isInteger())) {
            f.fail(core::Tr::tr("extras: names and numbers are expected"));
            break;
        }
        e.extras.append({it.key().toString(), it.value().toDouble()});
    }
    for (const auto &[key, values] : {std::pair{QStringLiteral("rank_compute"), &e.rankComputeSeconds},
                                      std::pair{QStringLiteral("rank_wait"), &e.rankWaitSeconds}}) {
        const QCborArray array = f.array(key);
        for (const QCborValue &v : array)
            values->append(v.isDouble() || v.isInteger() ? v.toDouble() : kNoValue);
    }
    e.path = f.text(QStringLiteral("path"));
    e.bytes = f.integer(QStringLiteral("bytes"), 0, maxCount, kNoCount);
    e.reason = f.text(QStringLiteral("reason"));
    e.worldSize = int(f.integer(QStringLiteral("world_size"), 0, 1 << 24));
    e.model = f.text(QStringLiteral("model"));
    e.dataset = f.text(QStringLiteral("dataset"));
    e.resumed = f.flag(QStringLiteral("resumed"));
    e.resumePath = f.text(QStringLiteral("resume_path"));
    e.resumeEpoch = f.integer(QStringLiteral("resume_epoch"), 0, maxCount, kNoCount);
    e.resumeStep = f.integer(QStringLiteral("resume_step"), 0, maxCount, kNoCount);
    e.resumeSkipped = f.integer(QStringLiteral("resume_skipped"), 0, maxCount);
    e.exitCode = int(f.integer(QStringLiteral("exit_code"), -(1 << 20), 1 << 20));
    e.signal = f.text(QStringLiteral("signal"));
    e.message = f.text(QStringLiteral("message"));
    return finish(f, e, error);
}
} // namespace

QCborMap hostKeyToCbor(const HostKeyCheck &key)
{
    return QCborMap{{QStringLiteral("status"), int(key.status)},
                    {QStringLiteral("type"), key.keyType},
                    {QStringLiteral("sha256"), key.fingerprintSha256},
                    {QStringLiteral("error"), key.error}};
}

std::optional<HostKeyCheck> hostKeyFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    HostKeyCheck key;
    key.status = HostKeyStatus(f.integer(QStringLiteral("status"), 0, int(HostKeyStatus::Error)));
    key.keyType = f.text(QStringLiteral("type"), false, 256);
    key.fingerprintSha256 = f.text(QStringLiteral("sha256"), true, 256);
    key.error = f.text(QStringLiteral("error"));
    return finish(f, key, error);
}

QCborMap credentialPromptToCbor(const CredentialPrompt &prompt)
{
    return QCborMap{{QStringLiteral("kind"), int(prompt.kind)},
                    {QStringLiteral("host"), prompt.host},
                    {QStringLiteral("instruction"), prompt.instruction},
                    {QStringLiteral("text"), prompt.text},
                    {QStringLiteral("echo"), prompt.echo}};
}

std::optional<CredentialPrompt> credentialPromptFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    CredentialPrompt prompt;
    prompt.kind =
        CredentialPrompt::Kind(f.integer(QStringLiteral("kind"), 0, int(CredentialPrompt::Kind::KeyboardInteractive)));
    prompt.host = f.text(QStringLiteral("host"), true, 1024);
    prompt.instruction = f.text(QStringLiteral("instruction"), false, 4096);
    prompt.text = f.text(QStringLiteral("text"), false, 4096);
    prompt.echo = f.flag(QStringLiteral("echo"));
    return finish(f, prompt, error);
}

QCborMap checkItemToCbor(const CheckItem &item)
{
    return QCborMap{{QStringLiteral("name"), item.name},
                    {QStringLiteral("ok"), item.ok},
                    {QStringLiteral("detail"), item.detail},
                    {QStringLiteral("warning"), item.warning},
                    {QStringLiteral("finding"), item.finding}};
}

std::optional<CheckItem> checkItemFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    CheckItem item;
    item.name = f.text(QStringLiteral("name"), true);
    item.ok = f.flag(QStringLiteral("ok"));
    item.detail = f.text(QStringLiteral("detail"));
    item.warning = f.flag(QStringLiteral("warning"));
    item.finding = f.text(QStringLiteral("finding"), false, 1 << 16); // the partitions, as JSON
    return finish(f, item, error);
}

QCborMap checkSettingsToCbor(const ClusterCheckSettings &settings)
{
    return QCborMap{{QStringLiteral("scheduler"), int(settings.scheduler)},
                    {QStringLiteral("work"), settings.workDirectory},
                    {QStringLiteral("libtorch"), settings.libtorchPrefix},
                    {QStringLiteral("modules"), QCborArray::fromStringList(settings.moduleLines)},
                    {QStringLiteral("probe_requeue"), settings.probeRequeue},
                    {QStringLiteral("partition"), settings.partition},
                    {QStringLiteral("account"), settings.account},
                    {QStringLiteral("reach"), QCborArray::fromStringList(settings.reach)}};
}

std::optional<ClusterCheckSettings> checkSettingsFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    ClusterCheckSettings settings;
    settings.scheduler = SchedulerKind(f.integer(QStringLiteral("scheduler"), 0, int(SchedulerKind::Local)));
    settings.workDirectory = f.text(QStringLiteral("work"), true);
    settings.libtorchPrefix = f.text(QStringLiteral("libtorch"));
    settings.moduleLines = f.texts(QStringLiteral("modules"));
    settings.probeRequeue = f.flag(QStringLiteral("probe_requeue"));
    settings.partition = f.text(QStringLiteral("partition"), false, 1024);
    settings.account = f.text(QStringLiteral("account"), false, 1024);
    settings.reach = f.texts(QStringLiteral("reach"));
    return finish(f, settings, error);
}

QCborMap launchRequestToCbor(const LaunchRequest &request)
{
    return QCborMap{{QStringLiteral("cluster"), request.profile.name},
                    {QStringLiteral("profile"), QCborMap::fromJsonObject(request.profile.toJson())},
                    {QStringLiteral("spec"), QCborMap::fromJsonObject(request.spec.toJson())},
                    {QStringLiteral("run"), request.runId},
                    {QStringLiteral("attempt"), request.attempt},
                    {QStringLiteral("resume"), request.resume.text()},
                    {QStringLiteral("script"), request.script},
                    {QStringLiteral("after_kind"), int(request.after.kind)},
                    {QStringLiteral("after"), QCborArray::fromStringList(request.after.jobIds)},
                    {QStringLiteral("placement"), request.placement}};
}

std::optional<LaunchRequest> launchRequestFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    LaunchRequest request;
    const QString cluster = f.text(QStringLiteral("cluster"), true, 1024);
    const QCborMap profile = f.map(QStringLiteral("profile"), true);
    const QCborMap spec = f.map(QStringLiteral("spec"), true);
    request.runId = f.text(QStringLiteral("run"), false, 128);
    request.attempt = int(f.integer(QStringLiteral("attempt"), 0, 1 << 20));
    request.resume = ResumeFrom::fromText(f.text(QStringLiteral("resume")));
    request.script = f.text(QStringLiteral("script"), false, 4 << 20);
    request.after.kind =
        SubmitDependency::Kind(f.integer(QStringLiteral("after_kind"), 0, int(SubmitDependency::AfterAny)));
    request.after.jobIds = f.texts(QStringLiteral("after"), 1000);
    request.placement = f.text(QStringLiteral("placement"), false, 64 << 10);
    if (f.ok()) {
        QString problem;
        request.profile = ClusterProfile::fromJson(cluster, profile.toJsonObject(), &problem);
        if (!problem.isEmpty())
            f.fail(core::Tr::tr("profile: %1").arg(problem));
        const JobSpec::FromJson decoded = JobSpec::fromJson(spec.toJsonObject());
        if (!decoded.ok())
            f.fail(core::Tr::tr("spec: %1").arg(decoded.error));
        request.spec = decoded.spec;
    }
    return finish(f, request, error);
}

QCborMap launchResultToCbor(const LaunchResult &result)
{
    return QCborMap{{QStringLiteral("run"), result.runId},
                    {QStringLiteral("attempt"), result.attempt},
                    {QStringLiteral("job"), result.jobId},
                    {QStringLiteral("directory"), result.runDirectory},
                    {QStringLiteral("script"), result.script}};
}

std::optional<LaunchResult> launchResultFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    LaunchResult result;
    result.runId = f.text(QStringLiteral("run"), true, 128);
    result.attempt = int(f.integer(QStringLiteral("attempt"), 0, 1 << 20));
    result.jobId = f.text(QStringLiteral("job"), false, 1024);
    result.runDirectory = f.text(QStringLiteral("directory"));
    result.script = f.text(QStringLiteral("script"), false, 4 << 20);
    return finish(f, result, error);
}

QCborArray metricEventsToCbor(const QList<MetricEvent> &events)
{
    QCborArray array;
    for (const MetricEvent &e : events)
        array.append(metricEventToCbor(e));
    return array;
}

std::optional<QList<MetricEvent>> metricEventsFromCbor(const QCborArray &array, QString *error)
{
    if (array.size() > maxEventsPerBatch) {
        *error = core::Tr::tr("too many events in one message");
        return std::nullopt;
    }
    QList<MetricEvent> events;
    events.reserve(array.size());
    for (const auto &value : array) {
        if (!value.isMap()) {
            *error = core::Tr::tr("an event is a map");
            return std::nullopt;
        }
        std::optional<MetricEvent> event = metricEventFromCbor(value.toMap(), error);
        if (!event)
            return std::nullopt;
        events.append(*event);
    }
    return events;
}

std::optional<ConnectionState> connectionStateFromCbor(const QCborValue &value)
{
    if (!value.isInteger() || value.toInteger() < 0 || value.toInteger() > int(ConnectionState::Failed))
        return std::nullopt;
    return ConnectionState(value.toInteger());
}

QCborMap agentStatusToCbor(const AgentStatus &status)
{
    QCborArray clusters;
    for (const AgentClusterStatus &c : status.clusters)
        clusters.append(
            QCborMap{{QStringLiteral("name"), c.name},
                     {QStringLiteral("state"), int(c.state)},
                     {QStringLiteral("detail"), c.detail},
                     {QStringLiteral("runs"), c.runsWatched},
                     {QStringLiteral("needs_you"), c.needsYou},
                     {QStringLiteral("poll_ms"), c.pollMs},
                     {QStringLiteral("next_poll_ms"), c.nextPollMs},
                     {QStringLiteral("load"), QCborMap{{QStringLiteral("commands"), c.load.commands},
                                                       {QStringLiteral("scheduler_queries"), c.load.schedulerQueries},
                                                       {QStringLiteral("sftp_requests"), c.load.sftpRequests},
                                                       {QStringLiteral("bytes_in"), c.load.bytesIn},
                                                       {QStringLiteral("following"), c.load.following},
                                                       {QStringLiteral("follower_problem"), c.load.followerProblem}}}});
    QCborArray clients;
    for (const AgentClientStatus &c : status.clients)
        clients.append(QCborMap{{QStringLiteral("front"), c.front},
                                {QStringLiteral("pid"), c.pid},
                                {QStringLiteral("interactive"), c.interactive}});
    return QCborMap{{QStringLiteral("pid"), status.pid},
                    {QStringLiteral("version"), status.version},
                    {QStringLiteral("executable"), status.executable},
                    {QStringLiteral("started"), status.started.toSecsSinceEpoch()},
                    {QStringLiteral("data"), status.dataDirectory},
                    {QStringLiteral("socket"), status.socketPath},
                    {QStringLiteral("idle_exit_minutes"), status.idleExitMinutes},
                    {QStringLiteral("submissions"), status.submissionsInFlight},
                    {QStringLiteral("clusters"), clusters},
                    {QStringLiteral("clients"), clients}};
}

std::optional<AgentStatus> agentStatusFromCbor(const QCborMap &map, QString *error)
{
    CborFields f(map);
    AgentStatus status;
    status.pid = f.integer(QStringLiteral("pid"), 0, maxCount);
    status.version = f.text(QStringLiteral("version"));
    status.executable = f.text(QStringLiteral("executable"));
    status.started = QDateTime::fromSecsSinceEpoch(f.integer(QStringLiteral("started"), 0, maxCount));
    status.dataDirectory = f.text(QStringLiteral("data"));
    status.socketPath = f.text(QStringLiteral("socket"));
    status.idleExitMinutes = int(f.integer(QStringLiteral("idle_exit_minutes"), 0, 1 << 20));
    status.submissionsInFlight = int(f.integer(QStringLiteral("submissions"), 0, 1 << 20));
    for (const auto &value : f.array(QStringLiteral("clusters"))) {
        CborFields c(value.toMap());
        AgentClusterStatus cluster;
        cluster.name = c.text(QStringLiteral("name"), true);
        cluster.state = connectionStateFromCbor(value.toMap().value(QStringLiteral("state")))
                            .value_or(ConnectionState::Disconnected);
        cluster.detail = c.text(QStringLiteral("detail"));
        cluster.runsWatched = int(c.integer(QStringLiteral("runs"), 0, 1 << 24));
        cluster.needsYou = c.flag(QStringLiteral("needs_you"));
        cluster.pollMs = int(c.integer(QStringLiteral("poll_ms"), 0, 1 << 30));
        cluster.nextPollMs = int(c.integer(QStringLiteral("next_poll_ms"), -1, 1 << 30, -1));
        CborFields load(value.toMap().value(QStringLiteral("load")).toMap());
        cluster.load = {load.integer(QStringLiteral("commands"), 0, maxCount),
                        load.integer(QStringLiteral("scheduler_queries"), 0, maxCount),
                        load.integer(QStringLiteral("sftp_requests"), 0, maxCount),
                        load.integer(QStringLiteral("bytes_in"), 0, maxCount),
                        load.text(QStringLiteral("following"), false, 256),
                        load.text(QStringLiteral("follower_problem"), false, 4096)};
        if (!c.ok())
            f.fail(c.error());
        status.clusters.append(cluster);
    }
    for (const auto &value : f.array(QStringLiteral("clients"))) {
        CborFields c(value.toMap());
        AgentClientStatus client;
        client.front = c.text(QStringLiteral("front"));
        client.pid = c.integer(QStringLiteral("pid"), 0, maxCount);
        client.interactive = c.flag(QStringLiteral("interactive"));
        if (!c.ok())
            f.fail(c.error());
        status.clients.append(client);
    }
    return finish(f, status, error);
}

} // namespace torchdeck
