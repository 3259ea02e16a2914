#include "core/scheduler/schedulercommands.h"

#include "core/scheduler/localcommands.h"
#include "core/scheduler/pbscommands.h"
#include "core/scheduler/qstatfullparser.h"
#include "core/scheduler/qstatjsonparser.h"
#include "core/scheduler/sacctparser.h"
#include "core/scheduler/scontrolparser.h"
#include "core/scheduler/slurmcommands.h"
#include "core/scheduler/squeueparser.h"
#include "core/scheduler/submitreply.h"

#include <QSet>
#include <algorithm>

namespace torchdeck {

namespace {

// scontrol show job lists every job: keep the asked ones.
JobListResult onlyThese(JobListResult result, const QStringList &ids)
{
    const QSet<QString> wanted(ids.cbegin(), ids.cend());
    result.jobs.removeIf([&](const JobInfo &job) { return !wanted.contains(job.id); });
    return result;
}

} // namespace

SchedulerCommands SchedulerCommands::slurm(SlurmHistory history)
{
    SchedulerCommands commands;
    commands.m_kind = SchedulerKind::Slurm;
    commands.m_history = history;
    return commands;
}

SchedulerCommands SchedulerCommands::pbs(PbsDialect dialect)
{
    SchedulerCommands commands;
    commands.m_kind = SchedulerKind::Pbs;
    commands.m_dialect = dialect;
    return commands;
}

SchedulerCommands SchedulerCommands::local(const QString &stateDir)
{
    SchedulerCommands commands;
    commands.m_kind = SchedulerKind::Local;
    commands.m_stateDir = stateDir;
    return commands;
}

SubmitCommand SchedulerCommands::submit(const QString &scriptPath, const SubmitDependency &after) const
{
    switch (m_kind) {
    case SchedulerKind::Slurm:
        return {slurm::sbatchArgs(scriptPath, after), parseSbatchReply};
    case SchedulerKind::Pbs:
        return {pbs::qsubArgs(scriptPath, after), parseQsubReply};
    case SchedulerKind::Local:
        break;
    }
    return {local::submitArgs(m_stateDir, scriptPath), parseLocalReply};
}

QueryCommand SchedulerCommands::query(const QStringList &ids) const
{
    if (ids.isEmpty())
        return {{}, [](const QByteArray &) { return JobListResult(); }};
    switch (m_kind) {
    case SchedulerKind::Slurm:
        return {slurm::squeueArgs(ids), parseSqueue};
    case SchedulerKind::Pbs: {
        const PbsDialect dialect = m_dialect;
        if (dialect == PbsDialect::PbsPro)
            return {pbs::qstatArgs(ids, dialect), [](const QByteArray &out) { return parseQstatJson(out); }};
        return {pbs::qstatArgs(ids, dialect),
                [](const QByteArray &out) { return parseQstatFull(out, PbsDialect::Torque); }};
    }
    case SchedulerKind::Local:
        break;
    }
    return {local::statusArgs(m_stateDir, ids), local::parseLocalStatus};
}

QueryCommand SchedulerCommands::queryFinished(const QStringList &ids) const
{
    if (ids.isEmpty() || m_kind != SchedulerKind::Slurm)
        return query(ids); // PBS's query reads history too (-x); a local run's exit file stays
    switch (m_history) {
    case SlurmHistory::Accounting:
        return {slurm::sacctArgs(ids, false), parseSacct};
    case SlurmHistory::CompletionFile:
        return {slurm::sacctArgs(ids, true), parseSacct};
    case SlurmHistory::Controller:
        break;
    }
    return {slurm::scontrolShowJobArgs(),
            [ids](const QByteArray &out) { return onlyThese(parseScontrolShowJob(out), ids); }};
}

QueryCommand SchedulerCommands::queryNamed(const QString &jobName, const QString &scriptPath) const
{
    const auto named = [jobName](JobListResult listed) {
        listed.jobs.erase(std::remove_if(listed.jobs.begin(), listed.jobs.end(),
                                         [&jobName](const JobInfo &job) { return job.name != jobName; }),
                          listed.jobs.end());
        return listed;
    };
    switch (m_kind) {
    case SchedulerKind::Slurm:
        return {slurm::squeueNamedArgs(jobName), [named](const QByteArray &out) { return named(parseSqueue(out)); }};
    case SchedulerKind::Pbs: {
        if (m_dialect == PbsDialect::PbsPro)
            return {pbs::qstatArgs({}, m_dialect),
                    [named](const QByteArray &out) { return named(parseQstatJson(out)); }};
        return {pbs::qstatArgs({}, m_dialect),
                [named](const QByteArray &out) { return named(parseQstatFull(out, PbsDialect::Torque)); }};
    }
    case SchedulerKind::Local:
        break;
    }
    return {local::startedFromArgs(m_stateDir, scriptPath), local::parseLocalStatus};
}

QueryCommand SchedulerCommands::queryNamedHistory(const QString &jobName, const QDateTime &since) const
{
    if (m_kind != SchedulerKind::Slurm || m_history == SlurmHistory::Controller)
        return {{}, [](const QByteArray &) { return JobListResult(); }};
    return {slurm::sacctNamedArgs(jobName, since, m_history == SlurmHistory::CompletionFile),
            [jobName](const QByteArray &out) {
                JobListResult listed = parseSacct(out);
                listed.jobs.removeIf([&jobName](const JobInfo &job) { return job.name != jobName; });
                return listed;
            }};
}

QStringList SchedulerCommands::action(SchedulerAction action, const QStringList &ids) const
{
    if (ids.isEmpty() || !supports(action))
        return {};
    switch (m_kind) {
    case SchedulerKind::Slurm:
        return slurm::actionArgs(action, ids);
    case SchedulerKind::Pbs:
        return pbs::actionArgs(action, ids);
    case SchedulerKind::Local:
        break;
    }
    return local::cancelArgs(ids);
}

bool SchedulerCommands::supports(SchedulerAction action) const
{
    return m_kind != SchedulerKind::Local || action == SchedulerAction::Cancel;
}

bool reportsUnknownJob(const QByteArray &stderrText)
{
    return stderrText.contains("Invalid job id specified") || stderrText.contains("Unknown Job Id");
}

} // namespace torchdeck
