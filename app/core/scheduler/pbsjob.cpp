#include "core/scheduler/pbsjob.h"

#include "core/scheduler/schedulertext.h"

#include <QSet>

namespace torchdeck {

using namespace schedulertext;

namespace {

// Documented special exit statuses (see tests/data/scheduler/README.md for the sources).
constexpr int pbsProKillWalltime = -29; // JOB_EXEC_KILL_WALLTIME
constexpr int torqueKillWalltime = -11; // Torque: job exceeded a walltime limit
constexpr int torqueCancelled = 271;    // Torque: a running job deleted with qdel
constexpr int signalBase = 256;         // PBS Pro and Torque: killed by signal n -> 256 + n
constexpr int substateTerminated = 91;  // PBS Pro history substates
constexpr int substateFailed = 93;
// Slurm's INFINITE minutes, as slurm-wlm-torque's qstat prints an unlimited walltime (71582788:15:00).
constexpr qint64 unlimitedSeconds = qint64(0xfffffffe) * 60;

// "node1/0+node2/1*2" -> "node1,node2"
QString hostsOf(const QString &execHost)
{
    QStringList hosts;
    for (const QString &part : execHost.split(u'+', Qt::SkipEmptyParts)) {
        const QString host = part.section(u'/', 0, 0).trimmed();
        if (!host.isEmpty() && !hosts.contains(host))
            hosts.append(host);
    }
    return hosts.join(u',');
}

// PBS prints times as ctime(3) strings; Torque sometimes as seconds since the epoch.
QDateTime timeOf(const QString &text)
{
    bool isNumber = false;
    const qint64 seconds = text.toLongLong(&isNumber);
    if (isNumber)
        return seconds > 0 ? QDateTime::fromSecsSinceEpoch(seconds) : QDateTime();
    return pbsTime(text);
}

qint64 walltimeOf(const QString &text)
{
    const qint64 seconds = pbsDuration(text);
    return seconds >= unlimitedSeconds ? 0 : seconds;
}

} // namespace

JobState pbsFinishedState(const PbsEnd &end, PbsDialect dialect)
{
    if (!end.hasExitStatus) {
        if (end.substate == substateTerminated)
            return JobState::Cancelled;
        if (end.substate == substateFailed)
            return JobState::Failed;
        return JobState::Completed;
    }
    const int status = end.exitStatus;
    if (status == 0)
        return JobState::Completed;
    if ((dialect == PbsDialect::PbsPro && status == pbsProKillWalltime) ||
        (dialect == PbsDialect::Torque && status == torqueKillWalltime))
        return JobState::Timeout;
    if (end.walltimeLimit > 0 && end.walltimeUsed >= end.walltimeLimit)
        return JobState::Timeout;
    if (dialect == PbsDialect::Torque && status == torqueCancelled)
        return JobState::Cancelled;
    const int signal = status > signalBase ? status - signalBase : 0;
    if (signal == 9 || signal == 15)
        return JobState::Cancelled;
    return JobState::Failed;
}

JobInfo pbsJobFromAttributes(const QString &id, const QHash<QString, QString> &attributes, PbsDialect dialect)
{
    const auto value = [&](const char16_t *key) { return attributes.value(QString::fromUtf16(key)); };
    JobInfo job;
    job.id = id;
    job.name = value(u"job_name");
    job.rawState = value(u"job_state");
    job.state = pbsJobState(job.rawState);
    job.queue = value(u"queue");
    job.nodes = hostsOf(value(u"exec_host"));
    job.reason = value(u"comment");
    job.submitted = timeOf(value(u"qtime"));
    job.started = timeOf(attributes.contains(QStringLiteral("stime")) ? value(u"stime") : value(u"start_time"));
    job.ended = timeOf(attributes.contains(QStringLiteral("obittime")) ? value(u"obittime") : value(u"comp_time"));
    job.expectedStart = timeOf(value(u"estimated.start_time")); // PBS Pro's scheduler, where it estimates
    job.timeLimitSeconds = walltimeOf(value(u"resource_list.walltime"));
    job.elapsedSeconds = pbsDuration(value(u"resources_used.walltime"));
    bool runCountOk = false;
    const int runCount = value(u"run_count").toInt(&runCountOk);
    if (runCountOk)
        job.restarts = qMax(0, runCount - 1);

    PbsEnd end;
    end.exitStatus = value(u"exit_status").toInt(&end.hasExitStatus);
    bool substateOk = false;
    end.substate = value(u"substate").toInt(&substateOk);
    if (!substateOk)
        end.substate = -1;
    end.walltimeUsed = job.elapsedSeconds;
    end.walltimeLimit = job.timeLimitSeconds;
    if (end.hasExitStatus) {
        job.exitCode = end.exitStatus;
        job.signal = end.exitStatus > signalBase ? end.exitStatus - signalBase : 0;
    }
    if (job.state == JobState::Completed) // F, X, C: the letter alone does not say how it ended
        job.state = pbsFinishedState(end, dialect);
    settleJob(job);
    return job;
}

} // namespace torchdeck
