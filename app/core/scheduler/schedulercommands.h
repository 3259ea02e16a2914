#pragma once

#include "core/scheduler/jobinfo.h"
#include "core/scheduler/pbsjob.h"
#include "core/schedulerkind.h"

#include <QByteArray>
#include <QStringList>
#include <functional>

namespace torchdeck {

// Where Slurm keeps jobs that squeue no longer lists (they leave it MinJobAge after they end).
enum class SlurmHistory {
    Accounting,     // slurmdbd: sacct
    CompletionFile, // no slurmdbd, JobCompType=jobcomp/filetxt: sacct -c
    Controller,     // neither: scontrol show job, while slurmctld still remembers the job
};

// A follow-up job: start it only after these jobs end (issue 7's requeue from outside). Not the JobSpec
// field of the same idea (core/jobs): this one is what the submit command line says.
struct SubmitDependency {
    enum Kind { None, AfterOk, AfterNotOk, AfterAny };
    Kind kind = None;
    QStringList jobIds;
};

// An argv to run (the caller shell-quotes it) and the parser for its stdout.
struct QueryCommand {
    QStringList argv; // empty: nothing to run (no ids asked for)
    std::function<JobListResult(const QByteArray &)> parse;
};
struct SubmitCommand {
    QStringList argv;
    std::function<SubmitResult(const QByteArray &)> parse;
};

enum class SchedulerAction { Cancel, Requeue, Hold, Release };

// Pure builders of scheduler command lines, one set per scheduler. Every query takes all watched ids and
// is ONE command, whatever their number. A job missing from a query's output has left the scheduler's
// memory: ask queryFinished, then give up on it.
class SchedulerCommands {
public:
    static SchedulerCommands slurm(SlurmHistory history = SlurmHistory::Accounting);
    static SchedulerCommands pbs(PbsDialect dialect);
    // Local runs: background processes whose pid is the job id; stateDir keeps their logs and exit codes.
    static SchedulerCommands local(const QString &stateDir);

    SchedulerKind kind() const { return m_kind; }

    SubmitCommand submit(const QString &scriptPath, const SubmitDependency &after = {}) const;
    QueryCommand query(const QStringList &ids) const;
    QueryCommand queryFinished(const QStringList &ids) const;
    // The jobs the scheduler knows by this name (a local run: by its script's path): what a submission whose
    // reply was lost finds again. Slurm: squeue (jobs stay listed MinJobAge after they end); PBS: every job
    // qstat lists; local: the runs started from that script.
    QueryCommand queryNamed(const QString &jobName, const QString &scriptPath) const;
    // The same in the scheduler's history, for jobs that left the queue: Slurm's accounting (or completion
    // file) since `since`. Empty argv where queryNamed covers the history already (PBS's -x, the controller's
    // memory, local runs).
    QueryCommand queryNamedHistory(const QString &jobName, const QDateTime &since) const;
    // Empty argv: the scheduler has no such action (local runs cannot be requeued or held).
    QStringList action(SchedulerAction action, const QStringList &ids) const;
    bool supports(SchedulerAction action) const;

    QStringList cancel(const QStringList &ids) const { return action(SchedulerAction::Cancel, ids); }
    QStringList requeue(const QStringList &ids) const { return action(SchedulerAction::Requeue, ids); }
    QStringList hold(const QStringList &ids) const { return action(SchedulerAction::Hold, ids); }
    QStringList release(const QStringList &ids) const { return action(SchedulerAction::Release, ids); }

private:
    SchedulerKind m_kind = SchedulerKind::Slurm;
    SlurmHistory m_history = SlurmHistory::Accounting;
    PbsDialect m_dialect = PbsDialect::PbsPro;
    QString m_stateDir;
};

// stderr of a query that names a job the scheduler has forgotten: squeue with a single purged id fails
// with "Invalid job id specified", qstat says "Unknown Job Id". Treat as "not listed", not as a failure.
bool reportsUnknownJob(const QByteArray &stderrText);

} // namespace torchdeck
