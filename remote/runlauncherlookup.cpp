// RunLauncher: an attempt whose first send may have reached the scheduler (a claim taken over from a process
// that stopped, a connection that broke while sbatch ran) is looked for wherever that send may have left a
// trace before it is sent: the queue, the scheduler's history, and the job's own record in its run directory
// (core/jobs/jobtrace.h), which needs no accounting and outlives the scheduler's memory. Only when every place
// says "never ran" is it sent; when one cannot be read it is not sent, and its claim stays for the next look.
#include "core/jobs/arrayscript.h"
#include "core/jobs/jobtrace.h"
#include "core/jobs/runlayout.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/connection.h"
#include "remote/runlauncher.h"
#include "remote/schedulerclient.h"

namespace torchdeck::remote {

namespace {
// The attempt's history is looked up from its run's creation: a restart of an old run looks far back.
constexpr int historyFallbackDays = 30;
} // namespace

void RunLauncher::lookFor(const StepHandle &step)
{
    const QString ownName = m_launches.constFirst().rendered.attemptSpec.name;
    const ArrayMembership &task = first().array;
    // A task's claim taken over: its array, if that reached the scheduler, else the run alone (as an earlier
    // takeover, or this one before the connection broke, sent it).
    m_lookups.clear();
    if (task.isSet())
        m_lookups = {{task.name, true}, {ownName, false}};
    else
        m_lookups = {{m_array ? arrayJobName() : ownName, false}};
    const QString checking =
        tr("checking whether attempt %1 reached the scheduler (its queue, its history, the run's directory)")
            .arg(first().attempt);
    emit progress(checking, 0, 0);
    noteOnRuns(checking);
    lookInQueue(step, 0);
}

void RunLauncher::lookInQueue(const StepHandle &step, qsizetype index)
{
    if (index == m_lookups.size())
        return lookInHistory(step, 0);
    const Lookup lookup = m_lookups.at(index);
    const QString script = m_scriptDirectory + u'/' + RunLayout{{}}.scriptName(first().attempt);
    SchedulerClient *client = schedulerClient(step);
    lookWith(step, client, lookup.asTask, [this, step, index] { lookInQueue(step, index + 1); });
    client->findNamed(lookup.name, script);
}

void RunLauncher::lookInHistory(const StepHandle &step, qsizetype index)
{
    if (index == m_lookups.size())
        return lookInTrace(step);
    const Lookup lookup = m_lookups.at(index);
    const auto stored = m_store->run(first().runId);
    const QDateTime created = stored.ok() && stored.value && stored.value->created.isValid()
                                  ? stored.value->created
                                  : QDateTime::currentDateTimeUtc().addDays(-historyFallbackDays);
    SchedulerClient *client = schedulerClient(step);
    lookWith(step, client, lookup.asTask, [this, step, index] { lookInHistory(step, index + 1); });
    client->find(first().profile.commands().queryNamedHistory(lookup.name, created),
                 tr("looking for job %1 in the scheduler's history").arg(lookup.name));
}

void RunLauncher::lookWith(const StepHandle &step, SchedulerClient *client, bool asTask,
                           const std::function<void()> &notFound)
{
    connect(client, &SchedulerClient::failed, step.context(),
            [this, client, step](const QString &error) { cannotTell(step, client, error); });
    connect(client, &SchedulerClient::found, step.context(),
            [this, client, step, asTask, notFound](const JobListResult &jobs) {
                client->deleteLater();
                if (jobs.jobs.isEmpty())
                    return notFound();
                const QString found = jobs.jobs.constFirst().id;
                const SchedulerKind scheduler = first().profile.scheduler;
                foundSent(step, m_array  ? arrayJobIdOf(scheduler, found)
                                : asTask ? arrayTaskJobId(scheduler, arrayJobIdOf(scheduler, found), first().array.task)
                                         : found);
            });
}

void RunLauncher::lookInTrace(const StepHandle &step)
{
    // An array's tasks each keep their record in their run's directory: the first task's tells the array's id.
    const QString trace = RunLayout{m_launches.constFirst().rendered.runDirectory}.traceFile(first().attempt);
    if (!m_connection)
        return cannotTell(step, nullptr, tr("no connection"));
    RemoteCommand *read = m_connection->run(QStringLiteral("if [ -e %1 ]; then cat -- %1; fi").arg(shellQuote(trace)));
    connect(read, &RemoteCommand::failed, step.context(),
            [this, step](const QString &error) { cannotTell(step, nullptr, error); });
    connect(read, &RemoteCommand::finished, step.context(), [this, step, trace](const ExecResult &result) {
        if (result.exitCode != 0)
            return cannotTell(step, nullptr,
                              tr("cannot read %1: %2").arg(trace, QString::fromUtf8(result.err.trimmed())));
        const JobTrace traced = parseJobTrace(result.out);
        if (traced.started())
            return foundSent(step, m_array ? arrayJobIdOf(first().profile.scheduler, traced.jobId) : traced.jobId);
        if (m_sends >= 2)
            return step.fail(tr("the scheduler does not list the job submitted twice"));
        noteOnRuns(tr("attempt %1 never reached the scheduler: sending it").arg(first().attempt));
        send(step);
    });
}

void RunLauncher::foundSent(const StepHandle &step, const QString &jobId)
{
    m_jobId = jobId;
    emit progress(tr("Found job %1: it was submitted").arg(m_jobId), 0, 0);
    // Said with the record: the user sees why this job was not sent by whoever submitted it.
    for (Launch &launch : m_launches)
        launch.run.message = tr("attempt %1 had reached the scheduler as job %2 before its submission was cut short; "
                                "it was not sent again")
                                 .arg(launch.request.attempt)
                                 .arg(m_jobId);
    step.done();
}

void RunLauncher::cannotTell(const StepHandle &step, SchedulerClient *client, const QString &error)
{
    if (client)
        client->deleteLater();
    // The claim stays: the next look (the agent's next pass, once its lease is over) looks again.
    const QString message =
        tr("cannot tell whether attempt %1 reached the scheduler (%2); it is not sent again until that is known")
            .arg(first().attempt)
            .arg(error);
    noteOnRuns(message);
    step.fail(message);
}

void RunLauncher::noteOnRuns(const QString &message)
{
    for (const Launch &launch : std::as_const(m_launches)) {
        const auto stored = m_store->run(launch.request.runId);
        if (!stored.ok() || !stored.value || stored.value->message == message)
            continue;
        RunRecord updated = *stored.value;
        updated.message = message;
        static_cast<void>(m_store->updateRun(updated)); // best effort: the step says it too
    }
}

void RunLauncher::whenReconnected(const StepHandle &step, const std::function<void()> &then)
{
    if (!m_connection)
        return step.fail(tr("no connection"));
    if (m_connection->state() == ConnectionState::Connected)
        return then();
    auto link = std::make_shared<QMetaObject::Connection>();
    *link = connect(m_connection, &Connection::stateChanged, step.context(),
                    [this, link, step, then](ConnectionState state, const QString &detail) {
                        if (state == ConnectionState::Connected) {
                            disconnect(*link);
                            then();
                        } else if (state == ConnectionState::Failed || state == ConnectionState::Disconnected) {
                            disconnect(*link);
                            step.fail(tr("the connection to %1 did not come back (%2); whether the job was "
                                         "submitted is looked up when it does")
                                          .arg(first().profile.name, detail));
                        }
                    });
}

} // namespace torchdeck::remote
