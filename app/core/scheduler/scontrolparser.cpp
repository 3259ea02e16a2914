#include "core/scheduler/scontrolparser.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

#include <QRegularExpression>
#include <QSet>

namespace torchdeck {

using namespace schedulertext;

namespace {

// Keys whose values may hold spaces (free text or paths).
bool isFreeText(const QString &key)
{
    static const QSet<QString> keys = {
        QStringLiteral("JobName"), QStringLiteral("Command"),      QStringLiteral("WorkDir"),
        QStringLiteral("StdErr"),  QStringLiteral("StdIn"),        QStringLiteral("StdOut"),
        QStringLiteral("Comment"), QStringLiteral("AdminComment"), QStringLiteral("SystemComment"),
        QStringLiteral("Reason"),  QStringLiteral("Features"),     QStringLiteral("Dependency")};
    return keys.contains(key);
}

// Keys scontrol 22.05 prints for a job (and a few of other versions): where a free text value can end.
bool isKnownKey(const QString &key)
{
    static const QSet<QString> keys = [] {
        const QString list = QStringLiteral(
            "JobId JobName UserId GroupId MCS_label Priority Nice Account QOS JobState Reason Dependency "
            "Requeue "
            "Restarts BatchFlag Reboot ExitCode DerivedExitCode RunTime TimeLimit TimeMin SubmitTime "
            "EligibleTime "
            "AccrueTime StartTime EndTime Deadline SuspendTime SecsPreSuspend LastSchedEval Scheduler "
            "Partition "
            "AllocNode:Sid ReqNodeList ExcNodeList NodeList BatchHost NumNodes NumCPUs NumTasks CPUs/Task "
            "ReqB:S:C:T TRES Socks/Node NtasksPerN:B:S:C CoreSpec MinCPUsNode MinMemoryNode MinMemoryCPU "
            "MinTmpDiskNode Features DelayBoot OverSubscribe Contiguous Licenses Network Command WorkDir "
            "StdErr "
            "StdIn StdOut Power Comment AdminComment SystemComment ArrayJobId ArrayTaskId ArrayTaskThrottle "
            "HetJobId HetJobOffset HetJobIdSet Reservation Partition MailUser MailType TresPerNode "
            "TresPerJob "
            "TresPerTask CpusPerTres MemPerTres NtasksPerTRES Container ContainerID OOMKillStep Prolog "
            "Epilog "
            "ResizeTime PreemptEligibleTime PreemptTime Clusters ClusterFeatures Shared CPU_IDs Mem GRES "
            "BurstBuffer BurstBufferState Selinux TresFreq CPUFreq NtasksPerNode KillOInInvalidDependent "
            "NodeFeatures SpreadJob StepMgrEnabled TimeLimitSeconds");
        const QStringList words = list.split(u' ');
        return QSet<QString>(words.cbegin(), words.cend());
    }();
    return keys.contains(key);
}

} // namespace

QHash<QString, QString> scontrolFields(const QString &line)
{
    static const QRegularExpression keyStart(QStringLiteral(R"((?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=)"));
    struct Start {
        qsizetype keyBegin;
        qsizetype valueBegin;
        QString key;
    };
    QList<Start> starts;
    for (auto it = keyStart.globalMatch(line); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        const QString key = match.captured(1);
        // Inside a free text value only a known key starts a new pair: "JobName=a b=c UserId=..." stays
        // whole.
        if (!starts.isEmpty() && isFreeText(starts.constLast().key) && !isKnownKey(key))
            continue;
        starts.append({match.capturedStart(1), match.capturedEnd(0), key});
    }
    QHash<QString, QString> fields;
    for (qsizetype i = 0; i < starts.size(); ++i) {
        const qsizetype end = i + 1 < starts.size() ? starts.at(i + 1).keyBegin : line.size();
        const QString value = line.mid(starts.at(i).valueBegin, end - starts.at(i).valueBegin);
        fields.insert(starts.at(i).key, value.trimmed());
    }
    return fields;
}

JobListResult parseScontrolShowJob(const QByteArray &output)
{
    JobListResult result;
    for (const Line &line : nonBlankLines(output)) {
        if (line.text.trimmed() == QStringLiteral("No jobs in the system"))
            continue;
        const QHash<QString, QString> fields = scontrolFields(line.text);
        QString id = fields.value(QStringLiteral("JobId"));
        if (!isSlurmJobId(id) || !fields.contains(QStringLiteral("JobState"))) {
            result.errors.append(core::Tr::tr("line %1: no JobId=<number> and JobState= in '%2'")
                                     .arg(line.number)
                                     .arg(line.text.left(60)));
            continue;
        }
        // Array tasks go by ArrayJobId_ArrayTaskId, as squeue and sacct name them.
        const QString arrayJob = fields.value(QStringLiteral("ArrayJobId"));
        const QString arrayTask = fields.value(QStringLiteral("ArrayTaskId"));
        if (!arrayJob.isEmpty() && !arrayTask.isEmpty())
            id = arrayJob + u'_' + arrayTask;
        JobInfo job;
        job.id = id;
        job.name = fields.value(QStringLiteral("JobName"));
        job.rawState = fields.value(QStringLiteral("JobState"));
        job.state = slurmJobState(job.rawState);
        job.reason = slurmText(fields.value(QStringLiteral("Reason")));
        bool restartsOk = false;
        const int restarts = fields.value(QStringLiteral("Restarts")).toInt(&restartsOk);
        job.restarts = restartsOk ? restarts : -1;
        const schedulertext::ExitStatus exit = slurmExitCode(fields.value(QStringLiteral("ExitCode")));
        job.exitCode = exit.code;
        job.signal = exit.signal;
        job.elapsedSeconds = slurmDuration(fields.value(QStringLiteral("RunTime")));
        job.timeLimitSeconds = slurmDuration(fields.value(QStringLiteral("TimeLimit")));
        job.submitted = slurmTime(fields.value(QStringLiteral("SubmitTime")));
        job.started = slurmTime(fields.value(QStringLiteral("StartTime")));
        job.ended = slurmTime(fields.value(QStringLiteral("EndTime")));
        job.queue = fields.value(QStringLiteral("Partition"));
        job.nodes = slurmText(fields.value(QStringLiteral("NodeList")));
        settleJob(job);
        result.jobs.append(job);
    }
    return result;
}

} // namespace torchdeck
