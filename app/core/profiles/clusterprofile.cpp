#include "core/profiles/clusterprofile.h"

#include "core/coretr.h"
#include "core/profiles/accountlimits.h"
#include "core/profiles/partitionshape.h"
#include "core/shellquote.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {
const QString sandboxName = QStringLiteral("torchdeck-sandbox");

QJsonArray toArray(const QStringList &list)
{
    QJsonArray array;
    for (const QString &item : list)
        array.append(item);
    return array;
}
} // namespace

QString schedulerKindName(SchedulerKind kind)
{
    switch (kind) {
    case SchedulerKind::Slurm:
        return QStringLiteral("slurm");
    case SchedulerKind::Pbs:
        return QStringLiteral("pbs");
    case SchedulerKind::Local:
        return QStringLiteral("local");
    }
    return {};
}

std::optional<SchedulerKind> schedulerKindFromName(const QString &name)
{
    for (SchedulerKind kind : {SchedulerKind::Slurm, SchedulerKind::Pbs, SchedulerKind::Local}) {
        if (schedulerKindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

QString slurmHistoryName(SlurmHistory history)
{
    switch (history) {
    case SlurmHistory::Accounting:
        return QStringLiteral("accounting");
    case SlurmHistory::CompletionFile:
        return QStringLiteral("completion-file");
    case SlurmHistory::Controller:
        return QStringLiteral("controller");
    }
    return {};
}

std::optional<SlurmHistory> slurmHistoryFromName(const QString &name)
{
    for (SlurmHistory history : {SlurmHistory::Accounting, SlurmHistory::CompletionFile, SlurmHistory::Controller}) {
        if (slurmHistoryName(history) == name)
            return history;
    }
    return std::nullopt;
}

QString inJobRequeueName(InJobRequeue value)
{
    switch (value) {
    case InJobRequeue::Unknown:
        return QStringLiteral("unknown");
    case InJobRequeue::Allowed:
        return QStringLiteral("allowed");
    case InJobRequeue::Refused:
        return QStringLiteral("refused");
    }
    return {};
}

std::optional<InJobRequeue> inJobRequeueFromName(const QString &name)
{
    for (InJobRequeue value : {InJobRequeue::Unknown, InJobRequeue::Allowed, InJobRequeue::Refused}) {
        if (inJobRequeueName(value) == name)
            return value;
    }
    return std::nullopt;
}

QJsonObject ClusterProfile::toJson() const
{
    QJsonObject object;
    object[u"scheduler"] = schedulerKindName(scheduler);
    object[u"pbs_dialect"] = pbsDialect == PbsDialect::Torque ? QStringLiteral("torque") : QStringLiteral("pbspro");
    object[u"slurm_history"] = slurmHistoryName(slurmHistory);
    object[u"account"] = account;
    object[u"partition"] = partition;
    object[u"work_directory"] = workDirectory;
    object[u"modules"] = toArray(modules);
    object[u"libtorch"] = libtorch;
    object[u"trainer_binary"] = trainerBinary;
    object[u"build_on"] = buildInJob ? QStringLiteral("job") : QStringLiteral("login");
    object[u"build_cpus"] = buildCpus;
    object[u"log_patterns"] = toArray(logPatterns);
    object[u"in_job_requeue"] = inJobRequeueName(inJobRequeue);
    object[u"notify_command"] = notifyCommand;
    object[u"reach"] = toArray(reach);
    object[u"wait_notice_seconds"] = waitNoticeSeconds;
    object[u"min_poll_seconds"] = minPollSeconds;
    if (partitionsReadAt.isValid()) {
        object[u"partitions"] = partitionsToJson(partitions);
        object[u"accounts"] = accountsToJson(accounts);
        object[u"qos"] = qosToJson(qos);
        object[u"partitions_read_at"] = partitionsReadAt.toUTC().toString(Qt::ISODateWithMs);
    }
    return object;
}

ClusterProfile ClusterProfile::fromJson(const QString &name, const QJsonObject &object, QString *error)
{
    ClusterProfile profile = defaultProfile(name);
    error->clear();
    const auto text = [&](const char16_t *key, QString *field) {
        const QJsonValue value = object.value(QStringView(key));
        if (value.isUndefined())
            return;
        if (!value.isString())
            *error = core::Tr::tr("%1: \"%2\" must be a string").arg(name, QStringView(key));
        else
            *field = value.toString();
    };
    QString scheduler = schedulerKindName(profile.scheduler);
    QString dialect = profile.pbsDialect == PbsDialect::Torque ? QStringLiteral("torque") : QStringLiteral("pbspro");
    QString history = slurmHistoryName(profile.slurmHistory);
    text(u"scheduler", &scheduler);
    text(u"pbs_dialect", &dialect);
    text(u"slurm_history", &history);
    text(u"account", &profile.account);
    text(u"partition", &profile.partition);
    text(u"work_directory", &profile.workDirectory);
    text(u"libtorch", &profile.libtorch);
    text(u"trainer_binary", &profile.trainerBinary);
    text(u"notify_command", &profile.notifyCommand);
    const auto lines = [&](const char16_t *key, QStringList *field) {
        const QJsonValue value = object.value(QStringView(key));
        const auto allText = [](const QJsonArray &array) {
            return std::all_of(array.begin(), array.end(), [](const QJsonValue &line) { return line.isString(); });
        };
        if (value.isArray() && allText(value.toArray())) {
            field->clear();
            for (const auto &line : value.toArray())
                field->append(line.toString());
        } else if (!value.isUndefined()) {
            *error = core::Tr::tr("%1: \"%2\" must be a list of lines").arg(name, QStringView(key));
        }
    };
    lines(u"modules", &profile.modules);
    lines(u"log_patterns", &profile.logPatterns);
    lines(u"reach", &profile.reach);
    QString buildOn = profile.buildInJob ? QStringLiteral("job") : QStringLiteral("login");
    text(u"build_on", &buildOn);
    if (buildOn == u"job" || buildOn == u"login")
        profile.buildInJob = buildOn == u"job";
    else
        *error = core::Tr::tr("%1: build_on \"%2\" is not login or job").arg(name, buildOn);
    const auto whole = [&](const char16_t *key, int *field, int min, int max) {
        const QJsonValue number = object.value(QStringView(key));
        if (number.isUndefined())
            return;
        // QJsonValue::toInt(0) is 0 for 2.5 and strings: check the number itself.
        const double value = number.toDouble(-1);
        if (!number.isDouble() || value < min || value > max || value != std::floor(value))
            *error = core::Tr::tr("%1: %2 must be a whole number from %3 to %4")
                         .arg(name, QStringView(key))
                         .arg(min)
                         .arg(max);
        else
            *field = int(value);
    };
    whole(u"build_cpus", &profile.buildCpus, 1, 1024);
    whole(u"wait_notice_seconds", &profile.waitNoticeSeconds, 0, 30 * 86400);
    whole(u"min_poll_seconds", &profile.minPollSeconds, 1, 3600);
    if (const auto kind = schedulerKindFromName(scheduler))
        profile.scheduler = *kind;
    else
        *error = core::Tr::tr("%1: scheduler \"%2\" is not slurm, pbs or local").arg(name, scheduler);
    if (dialect == u"torque" || dialect == u"pbspro")
        profile.pbsDialect = dialect == u"torque" ? PbsDialect::Torque : PbsDialect::PbsPro;
    else
        *error = core::Tr::tr("%1: pbs_dialect \"%2\" is not pbspro or torque").arg(name, dialect);
    if (const auto kind = slurmHistoryFromName(history))
        profile.slurmHistory = *kind;
    else
        *error = core::Tr::tr("%1: slurm_history \"%2\" is not accounting, completion-file or controller")
                     .arg(name, history);
    QString requeue = inJobRequeueName(profile.inJobRequeue);
    text(u"in_job_requeue", &requeue);
    if (const auto value = inJobRequeueFromName(requeue))
        profile.inJobRequeue = *value;
    else
        *error = core::Tr::tr("%1: in_job_requeue \"%2\" is not unknown, allowed or refused").arg(name, requeue);
    if (profile.workDirectory.isEmpty())
        *error = core::Tr::tr("%1: work_directory is empty").arg(name);
    profile.partitions = partitionsFromJson(object.value(QStringLiteral("partitions")).toArray());
    profile.accounts = accountsFromJson(object.value(QStringLiteral("accounts")).toArray());
    profile.qos = qosFromJson(object.value(QStringLiteral("qos")).toArray());
    profile.partitionsReadAt =
        QDateTime::fromString(object.value(QStringLiteral("partitions_read_at")).toString(), Qt::ISODate);
    return profile;
}

ClusterCaps ClusterProfile::caps() const
{
    ClusterCaps known;
    known.scheduler = scheduler;
    known.pbsDialect = pbsDialect;
    known.partitions = partitions;
    for (const PartitionCaps &p : partitions) {
        if (p.isDefault)
            known.defaultPartition = p.name;
    }
    if (!partition.isEmpty())
        known.defaultPartition = partition; // what a spec that names none gets from this profile
    const QString readAt = partitionsReadAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    if (!partitions.isEmpty())
        known.partitionsSource = scheduler == SchedulerKind::Pbs ? core::Tr::tr("qstat -Q -f, read %1").arg(readAt)
                                                                 : core::Tr::tr("sinfo, read %1").arg(readAt);
    known.accounts = accounts;
    known.qos = qos;
    if (!accounts.isEmpty())
        known.accountsSource = core::Tr::tr("sacctmgr, read %1").arg(readAt);
    return known;
}

void ClusterProfile::adoptNewerShape(const ClusterProfile &other)
{
    if (!other.partitionsReadAt.isValid() || (partitionsReadAt.isValid() && other.partitionsReadAt <= partitionsReadAt))
        return;
    partitions = other.partitions;
    accounts = other.accounts;
    qos = other.qos;
    partitionsReadAt = other.partitionsReadAt;
}

bool ClusterProfile::shapeIsFresh() const
{
    constexpr qint64 freshSeconds = 12 * 3600;
    if (scheduler == SchedulerKind::Local)
        return true;
    return partitionsReadAt.isValid() && partitionsReadAt.secsTo(QDateTime::currentDateTimeUtc()) < freshSeconds;
}

ClusterProfile ClusterProfile::withoutShape() const
{
    ClusterProfile bare = *this;
    bare.partitions.clear();
    bare.accounts.clear();
    bare.qos.clear();
    bare.partitionsReadAt = {};
    return bare;
}

SchedulerCommands ClusterProfile::commands(const QString &localStateDir) const
{
    switch (scheduler) {
    case SchedulerKind::Slurm:
        return SchedulerCommands::slurm(slurmHistory);
    case SchedulerKind::Pbs:
        return SchedulerCommands::pbs(pbsDialect);
    case SchedulerKind::Local:
        return SchedulerCommands::local(localStateDir);
    }
    return SchedulerCommands::slurm(slurmHistory);
}

bool operator==(const ClusterProfile &a, const ClusterProfile &b)
{
    return a.name == b.name && a.scheduler == b.scheduler && a.pbsDialect == b.pbsDialect &&
           a.slurmHistory == b.slurmHistory && a.account == b.account && a.partition == b.partition &&
           a.workDirectory == b.workDirectory && a.modules == b.modules && a.libtorch == b.libtorch &&
           a.trainerBinary == b.trainerBinary && a.buildInJob == b.buildInJob && a.buildCpus == b.buildCpus &&
           a.logPatterns == b.logPatterns && a.inJobRequeue == b.inJobRequeue && a.notifyCommand == b.notifyCommand &&
           a.reach == b.reach && a.waitNoticeSeconds == b.waitNoticeSeconds && a.minPollSeconds == b.minPollSeconds &&
           partitionsToJson(a.partitions) == partitionsToJson(b.partitions) &&
           accountsToJson(a.accounts) == accountsToJson(b.accounts) && qosToJson(a.qos) == qosToJson(b.qos) &&
           a.partitionsReadAt == b.partitionsReadAt;
}

ClusterProfile defaultProfile(const QString &name)
{
    ClusterProfile profile;
    profile.name = name;
    if (name == sandboxName) {
        // scripts/sandbox runs Slurm without slurmdbd; ended jobs are in its completion file.
        profile.slurmHistory = SlurmHistory::CompletionFile;
        profile.workDirectory = QStringLiteral("~/.torchdeck/sandbox");
    }
    return profile;
}

QStringList ClusterProfile::moduleLoadLines() const
{
    QStringList lines;
    for (const QString &module : modules)
        lines.append(QStringLiteral("module load ") + shellQuote(module));
    return lines;
}

ClusterCheckSettings ClusterProfile::checkSettings() const
{
    ClusterCheckSettings settings;
    settings.scheduler = scheduler;
    settings.workDirectory = workDirectory;
    settings.libtorchPrefix = libtorchPrefix();
    settings.moduleLines = moduleLoadLines();
    settings.probeRequeue = scheduler == SchedulerKind::Slurm && inJobRequeue == InJobRequeue::Unknown;
    settings.partition = partition;
    settings.account = account;
    settings.reach = reach;
    return settings;
}

QString ClusterProfile::reachArgs(const QString &cluster) const
{
    for (const QString &line : reach) {
        const ReachLine parsed = parseReachLine(line);
        if (!parsed.cluster.isEmpty() && parsed.cluster == cluster)
            return parsed.sshArgs;
    }
    return {};
}

ReachLine parseReachLine(const QString &line)
{
    const qsizetype equals = line.indexOf(u'=');
    if (equals <= 0)
        return {};
    return {line.left(equals), line.mid(equals + 1).trimmed()};
}

QStringList mergeReach(QStringList reach, const QStringList &given)
{
    for (const QString &line : given) {
        const ReachLine parsed = parseReachLine(line);
        reach.removeIf([&parsed](const QString &old) { return parseReachLine(old).cluster == parsed.cluster; });
        if (!parsed.sshArgs.isEmpty())
            reach.append(line);
    }
    return reach;
}

} // namespace torchdeck
