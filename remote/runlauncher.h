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

// One job sent to the cluster, a declared sequence of steps each with its own error text: prepare the run
// directory, deploy the trainer (unless the profile names a prebuilt one), render the script (core's
// renderSubmission: what a preview showed), branch the checkpoints (a resume from an older one), submit,
// record the run and its job in the store. The trainer build's output streams through output().
class RunLauncher : public QObject {
    Q_OBJECT
public:
    RunLauncher(Connection *connection, RunStore *store, QObject *parent = nullptr);

    void start(const LaunchRequest &request);
    void stop() { m_steps.stop(); }

signals:
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void rendered(const QString &script);
    void submitted(const torchdeck::LaunchResult &result);
    void failed(const QString &error);

private:
    void prepareDirectory(const StepHandle &step);
    void deploy(const StepHandle &step);
    void render(const StepHandle &step);
    void branchCheckpoints(const StepHandle &step);
    void submit(const StepHandle &step);
    void record(const StepHandle &step);

    QPointer<Connection> m_connection;
    RunStore *m_store;
    LaunchRequest m_request;
    StepSequence m_steps;
    QString m_workDirectory;
    QString m_trainerBinary;
    SubmissionScript m_rendered;
    QString m_jobId;
};

} // namespace torchdeck::remote
