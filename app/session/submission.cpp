#include "session/internal/submission.h"

#include "core/store/runstore.h"
#include "remote/runlauncher.h"
#include "session/internal/sessioninternals.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck {

Submission::Submission(ClusterSession *session, LaunchRequest request, int chain)
    : QObject(session)
    , m_session(session)
    , m_request(std::move(request))
    , m_chain(std::max(chain, 1))
{
    connect(&m_steps, &remote::StepSequence::progress, this, &Submission::progress);
    connect(&m_steps, &remote::StepSequence::failed, this, [this](const QString &error) {
        emit failed(error);
        deleteLater();
    });
    connect(&m_steps, &remote::StepSequence::finished, this, [this] {
        emit finished(m_results.constFirst());
        deleteLater();
    });
    m_steps.add({tr("Connecting to %1").arg(m_session->name()), tr("cannot connect to %1").arg(m_session->name()),
                 [this](const remote::StepHandle &step) {
                     m_session->whenConnected(
                         step.context(), [step] { step.done(); }, [step](const QString &error) { step.fail(error); });
                 }});
    // The cluster's limits as the session knows them (read now when stale): the script is checked against them.
    m_steps.add({{}, {}, [this](const remote::StepHandle &step) {
                     m_session->readShape(step.context(), [this, step](const QString &problem) {
                         // The scheduler still refuses what it cannot run, in its own words.
                         const QDateTime read = m_session->profile().partitionsReadAt;
                         if (!problem.isEmpty())
                             emit progress(
                                 read.isValid()
                                     ? tr("Checked against the partitions and limits of %1 as read on %2 (reading "
                                          "them again failed: %3)")
                                           .arg(m_session->name(), read.toString(Qt::ISODate), problem)
                                     : tr("Not checked against the partitions and limits of %1: %2")
                                           .arg(m_session->name(), problem),
                                 0, 0);
                         m_request.profile.adoptNewerShape(m_session->profile());
                         for (LaunchRequest &each : m_array)
                             each.profile.adoptNewerShape(m_session->profile());
                         step.done();
                     });
                 }});
    m_steps.add({{}, {}, [this](const remote::StepHandle &step) { launch(step, m_request); }});
    for (int attempt = 1; attempt < m_chain; ++attempt) {
        m_steps.add({{},
                     tr("queueing attempt %1 of the chain").arg(attempt),
                     [this, attempt](const remote::StepHandle &step) { launch(step, chainedAttempt(attempt)); }});
    }
}

Submission::Submission(ClusterSession *session, const QList<LaunchRequest> &array, int maxRunning)
    : Submission(session, array.value(0), 1)
{
    m_array = array;
    m_maxRunning = maxRunning;
}

void Submission::start()
{
    emit started();
    m_steps.start();
}

void Submission::stop()
{
    m_steps.stop();
    deleteLater();
}

LaunchRequest Submission::chainedAttempt(int attempt) const
{
    LaunchRequest next = m_request;
    next.runId = m_results.constFirst().runId;
    next.attempt = m_request.attempt + attempt;
    next.resume = ResumeFrom::latest();
    next.script.clear();
    next.after = {SubmitDependency::AfterNotOk, {m_results.constLast().jobId}};
    next.origin.clear(); // a chain's (launchrecords.cpp), whatever the first attempt was
    // The code the first job uploaded, as the run recorded it: the chain runs it, not the folder once more.
    const auto run = m_session->store()->run(next.runId);
    if (run.ok() && run.value) {
        const JobSpec::FromJson stored = run.value->spec();
        if (stored.ok())
            next.spec.codeSnapshot = stored.spec.codeSnapshot;
    }
    return next;
}

void Submission::launch(const remote::StepHandle &step, const LaunchRequest &request)
{
    auto *launcher =
        new remote::RunLauncher(&SessionInternals::connection(*m_session), m_session->store(), step.context());
    connect(launcher, &remote::RunLauncher::progress, this, &Submission::progress);
    connect(launcher, &remote::RunLauncher::output, this, &Submission::output);
    connect(launcher, &remote::RunLauncher::rendered, this, &Submission::rendered);
    connect(launcher, &remote::RunLauncher::refused, this, &Submission::refused);
    connect(launcher, &remote::RunLauncher::failed, launcher, [launcher, step](const QString &error) {
        launcher->deleteLater();
        step.fail(error);
    });
    connect(launcher, &remote::RunLauncher::handledElsewhere, launcher, [launcher, step](const QString &message) {
        launcher->deleteLater();
        step.fail(message);
    });
    connect(launcher, &remote::RunLauncher::submitted, launcher,
            [this, launcher, step](const QList<LaunchResult> &results) {
                launcher->deleteLater();
                for (const LaunchResult &result : results) {
                    m_results.append(result);
                    emit jobSubmitted(result);
                    if (m_session)
                        emit m_session->submitted(result);
                }
                step.done();
            });
    if (m_results.isEmpty() && m_array.isEmpty())
        launcher->setJobsAdded(std::max(m_chain, m_sweepJobs));
    if (m_array.isEmpty())
        launcher->start(request);
    else
        launcher->startArray(m_array, m_maxRunning);
}

} // namespace torchdeck
