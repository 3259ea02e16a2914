#pragma once

#include "core/jobs/jobspecvalidation.h"
#include "core/runs/launchrequest.h"
#include "remote/stepsequence.h"

#include <QObject>
#include <QPointer>
#include <functional>

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
//
// Several new runs of one shape can go as one job array (startArray): each run gets its directory, script
// and claim as alone, the array's script runs task i's script (core/jobs/arrayscript.h), and each run's job
// is task i's id ("123_4").
class RunLauncher : public QObject {
    Q_OBJECT
public:
    RunLauncher(Connection *connection, RunStore *store, QObject *parent = nullptr);

    void start(const LaunchRequest &request);
    // New runs of one shape as one job array, at most maxRunning tasks at a time (0: no limit).
    void startArray(const QList<LaunchRequest> &requests, int maxRunning);
    // The submission this launch begins sends `jobs` separate jobs (a chain's, a sweep's points): the user's
    // job limit is asked first, as for an array. Before start().
    void setJobsAdded(int jobs) { m_jobsAdded = jobs; }
    // This process, as the owner of the attempts it claims.
    static QString claimOwner();
    void stop() { m_steps.stop(); }

signals:
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void rendered(const QString &script);
    void refused(const QList<torchdeck::JobSpecError> &errors);    // the job's own check, just before failed()
    void submitted(const QList<torchdeck::LaunchResult> &results); // one per run, in the order given
    void failed(const QString &error);
    // Another front on the store is submitting this attempt, or already did: not an error, nothing sent.
    void handledElsewhere(const QString &message);

private:
    void checkArrayLimits(const StepHandle &step); // MaxArraySize and the user's job limit, where known; or
                                                   // the latter alone for setJobsAdded's separate jobs
    void prepareDirectory(const StepHandle &step);
    void deploy(const StepHandle &step);
    void syncCode(const StepHandle &step); // a custom command's code folder, as a snapshot
    void linkCode(const StepHandle &step); // the run's copy of it
    void refuse(const StepHandle &step, const QList<JobSpecError> &errors);
    void render(const StepHandle &step);
    void branchCheckpoints(const StepHandle &step);
    void composeArray(const StepHandle &step);
    void stageArray(const StepHandle &step); // the tasks' scripts and the links to their run directories
    void claim(const StepHandle &step);
    void releaseClaims(int count);
    void submit(const StepHandle &step);
    SchedulerClient *schedulerClient(const StepHandle &step); // dropped with the step
    void send(const StepHandle &step);
    // Before a send that may be a second one (runlauncherlookup.cpp): the queue, the history, the job's record.
    void lookFor(const StepHandle &step);
    void lookInQueue(const StepHandle &step, qsizetype index);
    void lookInHistory(const StepHandle &step, qsizetype index);
    void lookInTrace(const StepHandle &step);
    void lookWith(const StepHandle &step, SchedulerClient *client, bool asTask, const std::function<void()> &notFound);
    void foundSent(const StepHandle &step, const QString &jobId);
    void cannotTell(const StepHandle &step, SchedulerClient *client, const QString &error);
    void noteOnRuns(const QString &message); // the runs' message in the store: what their submission does
    void whenReconnected(const StepHandle &step, const std::function<void()> &then);
    void release(const StepHandle &step, const QString &error);
    void removeUnsentRunDirectories(const std::function<void()> &then);
    void record(const StepHandle &step);
    void runCommand(const StepHandle &step, const QString &command, const QString &failure);
    const LaunchRequest &first() const { return m_launches.constFirst().request; }
    QString jobIdOf(qsizetype index) const;
    QString arrayJobName() const;

    // One run's attempt in this submission.
    struct Launch {
        LaunchRequest request;
        SubmissionScript rendered;
        RunRecord run; // as recorded with the job
        JobRecord job; // its job id once the scheduler said it
    };

    QPointer<Connection> m_connection;
    RunStore *m_store;
    QList<Launch> m_launches;
    bool m_array = false;
    int m_maxRunning = 0;
    StepSequence m_steps;
    QString m_workDirectory;
    QString m_trainerBinary;
    QString m_script;          // what is submitted: the run's script, or the array's
    QString m_scriptDirectory; // where it is written and submitted from
    QString m_jobId;           // the scheduler's answer (the array's id for an array)
    bool m_lookFirst = false;  // a claim taken over: its job may exist
    struct Lookup {
        QString name; // the job name a first send had
        bool asTask;  // an array's, of which this run is a task
    };
    QList<Lookup> m_lookups;
    int m_sends = 0;
    int m_jobsAdded = 0;
    QString m_elsewhere;
};

} // namespace torchdeck::remote
