#pragma once

#include "remote/trainerbundle.h"

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

// Puts the bundled trainer on a cluster and builds it there:
//   resolve the work directory -> reuse a finished build of this bundle's hash, or
//   upload the sources into a staging directory -> rename it to <work>/trainer/<hash> -> cmake build ->
//   verify.
// Each step says what failed; the build's output streams through output(); stop() ends it between steps.
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
    using Step = std::function<void()>;
    void runCommand(const QString &what, const QString &command, const std::function<void(const QByteArray &)> &then,
                    bool streamOutput = false);
    void next();
    void fail(const QString &error);
    void resolveWorkDirectory();
    void checkExistingBuild();
    void uploadSources();
    void uploadFile(int index);
    void publishSources();
    void build();
    void verify();

    QPointer<Connection> m_connection;
    TrainerBundle m_bundle;
    DeploySettings m_settings;
    QList<Step> m_steps;
    bool m_stopped = false;
    QString m_trainerDir; // <work>/trainer/<hash>
    QString m_stagingDir;
    qint64 m_uploaded = 0;
    DeployResult m_result;
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::remote::DeployResult)
