#pragma once

#include "core/runs/launchrequest.h"
#include "remote/stepsequence.h"

#include <QObject>
#include <QPointer>

namespace torchdeck {

class ClusterSession;

// One submission through a session, as a declared sequence of steps: connect, then each job (the run's
// first, and for a chain the attempts queued after it, each with afternotok on the one before), each through
// remote::RunLauncher (prepare, deploy, render, branch, submit, record). Deletes itself after finished or
// failed. The vocabulary of every long operation: started, progress, output, finished, failed, stop().
class Submission : public QObject {
    Q_OBJECT
public:
    Submission(ClusterSession *session, LaunchRequest request, int chain);
    // New runs of one shape as one job array (remote::RunLauncher::startArray): a job result for each.
    Submission(ClusterSession *session, const QList<LaunchRequest> &array, int maxRunning);

    void start();
    void stop(); // no further job is submitted; a job already sent stays sent
    // This submission begins a sweep's `jobs` separate points: the first launch asks the user's job limit for
    // them all (a chain asks for its own jobs anyway).
    void setSweepJobs(int jobs) { m_sweepJobs = jobs; }
    const LaunchRequest &request() const { return m_request; }
    QList<LaunchResult> results() const { return m_results; }

signals:
    void started();
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void rendered(const QString &script);
    void refused(const QList<torchdeck::JobSpecError> &errors); // the job's own check, just before failed()
    void jobSubmitted(const torchdeck::LaunchResult &result);   // each job, the chain's too
    void finished(const torchdeck::LaunchResult &first);        // every job sent; the first one's result
    void failed(const QString &error);

private:
    void launch(const remote::StepHandle &step, const LaunchRequest &request);
    LaunchRequest chainedAttempt(int attempt) const;

    QPointer<ClusterSession> m_session;
    LaunchRequest m_request;
    int m_chain;
    QList<LaunchRequest> m_array;
    int m_maxRunning = 0;
    int m_sweepJobs = 0;
    QList<LaunchResult> m_results;
    remote::StepSequence m_steps;
};

} // namespace torchdeck
