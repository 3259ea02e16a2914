#pragma once

#include "core/scheduler/schedulercommands.h"

#include <QObject>
#include <QPointer>

namespace torchdeck::remote {

class Connection;

// Runs a scheduler's commands (core/scheduler builds them and parses their output) on a cluster.
// poll() costs one command for all ids, plus one history command only for ids the queue no longer lists.
class SchedulerClient : public QObject {
    Q_OBJECT
public:
    SchedulerClient(Connection *connection, SchedulerCommands commands, QObject *parent = nullptr);

    // Writes the script to remoteDir/fileName (creating remoteDir) and submits it from remoteDir.
    void submit(const QString &script, const QString &remoteDir, const QString &fileName,
                const SubmitDependency &after = {});
    void poll(const QStringList &ids);
    // The jobs the scheduler knows by this name (local runs: by script): found(), or failed().
    void findNamed(const QString &jobName, const QString &scriptPath);
    // The jobs a query of that kind lists (queryNamedHistory): found(), or failed(). An empty query finds none.
    void find(const QueryCommand &query, const QString &what);
    void act(SchedulerAction action, const QStringList &ids);
    // One command per job, each after the one before it succeeded (a chain's attempts, the last first: each
    // waits on the one before): actedOn() for each, actionDone() after the last, or failed() at the first
    // that fails.
    void actInTurn(SchedulerAction action, const QStringList &ids);
    int commandsRun() const { return m_commandsRun; }

signals:
    void submitted(const QString &jobId, const QString &scriptPath);
    // The connection broke while sbatch/qsub ran: the job may exist. Not failed(): ask findNamed().
    void submitInterrupted(const QString &error);
    void found(const torchdeck::JobListResult &jobs);
    void polled(const torchdeck::JobListResult &jobs);
    void actionDone(torchdeck::SchedulerAction action, const QStringList &ids);
    void actedOn(torchdeck::SchedulerAction action, const QString &id);
    void failed(const QString &error);

private:
    // Runs argv (quoted here) in dir; calls then(stdout, stderr) on exit code 0 or an accepted failure.
    // `interrupted`, if given, is called instead of failed() when the connection broke while it ran.
    void run(const QString &what, const QStringList &argv, const QString &dir,
             const std::function<void(const QByteArray &, const QByteArray &, int)> &then,
             const std::function<void(const QString &)> &interrupted = {});
    void uploadScript(const QString &script, const QString &remoteDir, const QString &path,
                      const SubmitDependency &after);
    void submitUploaded(const QString &remoteDir, const QString &path, const SubmitDependency &after);
    void pollFinished(JobListResult listed, const QStringList &missing);
    void actFrom(SchedulerAction action, const QStringList &ids, qsizetype index);
    // One action command for `ids`; `then` once it succeeded, else failed().
    void runAction(SchedulerAction action, const QStringList &ids, const std::function<void()> &then);

    QPointer<Connection> m_connection;
    SchedulerCommands m_commands;
    int m_commandsRun = 0;
};

} // namespace torchdeck::remote

Q_DECLARE_METATYPE(torchdeck::JobListResult)
