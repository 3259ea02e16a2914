#pragma once

#include "core/code/trainerbundle.h"
#include "remote/stepsequence.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <functional>

namespace torchdeck::remote {

class Connection;

struct DeploySettings {
    QString workDirectory = QStringLiteral("~/.torchdeck"); // remote; "~/" is the remote home
    QString libtorchPrefix;                                 // CMAKE_PREFIX_PATH on the cluster; empty: cmake finds it
    QStringList moduleLines;                                // shell lines run before cmake (module load ...)
    int buildJobs = 0;                                      // 0: the login node's nproc
    QStringList buildLauncher; // runs the build elsewhere, e.g. {"srun", "--ntasks=1", ...}; empty: here
    // PBS has no blocking launcher: this job script (remote/pbsbuildjob.h) runs the build; it is submitted
    // with qsub and its log followed until qstat says it ended. Non-empty: used instead of buildLauncher.
    QString buildJobScript;
};

struct DeployResult {
    QString binary; // absolute remote path of torchdeck-train
    QString hash;
    bool reused = false; // an earlier build of the same bundle was found: nothing uploaded or built
};

// Puts the bundled trainer on a cluster and builds it there, a StepSequence:
//   resolve the work directory -> reuse a finished build of this bundle's hash, or
//   upload the sources into a staging directory -> rename it to <work>/trainer/<hash> -> cmake build ->
//   verify.
// Each step says what failed; the build's output streams through output(); stop() ends it (failed follows).
class TrainerDeployment : public QObject {
    Q_OBJECT
public:
    TrainerDeployment(Connection *connection, TrainerBundle bundle, DeploySettings settings, QObject *parent = nullptr);

    void start();
    void stop();

signals:
    void started();
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void finished(const torchdeck::remote::DeployResult &result);
    void failed(const QString &error);

private:
    void runCommand(const StepHandle &step, const QString &what, const QString &command,
                    const std::function<void(const QByteArray &)> &then, bool streamOutput = false);
    void resolveWorkDirectory(const StepHandle &step);
    void checkExistingBuild(const StepHandle &step);
    void uploadSources(const StepHandle &step);
    void uploadFile(const StepHandle &step, int index);
    void publishSources(const StepHandle &step);
    void build(const StepHandle &step);
    void verify(const StepHandle &step);
    Step buildStep();
    Step verifyStep();

    QPointer<Connection> m_connection;
    TrainerBundle m_bundle;
    DeploySettings m_settings;
    StepSequence m_steps;
    QString m_trainerDir; // <work>/trainer/<hash>
    QString m_stagingDir;
    qint64 m_uploaded = 0;
    DeployResult m_result;
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::remote::DeployResult)
