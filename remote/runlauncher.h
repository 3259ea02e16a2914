#pragma once

#include "core/runs/launchrequest.h"
#include "remote/stepsequence.h"

#include <QObject>
#include <QPointer>

namespace torchdeck {
class RunStore;
}

namespace torchdeck::remote {

class Connection;
class SchedulerClient;

// One job sent to the cluster, a declared sequence of steps each with its own error text: prepare the run
// directory, deploy the trainer (unless the profile names a prebuilt one) or upload a custom command's code
// folder (remote/codesync.h) and link the run's copy, render the script (core's
// renderSubmission: what a preview showed), branch the checkpoints (a resume from an older one), claim the
// attempt in the store, submit, record the job. The trainer build's output streams through output().
//
// Nothing is submitted twice: the attempt is claimed before sbatch/qsub runs, so another front on the same
// store submitting it too stops (handledElsewhere); a reply lost with the connection is looked for by the
// job's name once the connection is back, and submitted only when the scheduler has no such job; a claim
// whose front stopped before it recorded a job is taken over once its lease has run out, looking first.
class RunLauncher : public QObject {
    Q_OBJECT
public:
    RunLauncher(Connection *connection, RunStore *store, QObject *parent = nullptr);

    void start(const LaunchRequest &request);
    // This process, as the owner of the attempts it claims.
    static QString claimOwner();
    void stop() { m_steps.stop(); }

signals:
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void rendered(const QString &script);
    void submitted(const torchdeck::LaunchResult &result);
    void failed(const QString &error);
    // Another front on the store is submitting this attempt, or already did: not an error, nothing sent.
    void handledElsewhere(const QString &message);

private:
    void prepareDirectory(const StepHandle &step);
    void deploy(const StepHandle &step);
    void syncCode(const StepHandle &step); // a custom command's code folder, as a snapshot
    void linkCode(const StepHandle &step); // the run's copy of it
    void render(const StepHandle &step);
    void branchCheckpoints(const StepHandle &step);
    void claim(const StepHandle &step);
    void submit(const StepHandle &step);
    SchedulerClient *schedulerClient(const StepHandle &step); // dropped with the step
    void send(const StepHandle &step);
    void lookFor(const StepHandle &step);
    void whenReconnected(const StepHandle &step, const std::function<void()> &then);
    void release(const StepHandle &step, const QString &error);
    void record(const StepHandle &step);

    QPointer<Connection> m_connection;
    RunStore *m_store;
    LaunchRequest m_request;
    StepSequence m_steps;
    QString m_workDirectory;
    QString m_trainerBinary;
    SubmissionScript m_rendered;
    RunRecord m_run; // as recorded with the job
    JobRecord m_job; // its job id once the scheduler said it
    QString m_jobId;
    bool m_lookFirst = false; // a claim taken over: its job may exist
    int m_sends = 0;
    QString m_elsewhere;
};

} // namespace torchdeck::remote
