#include "remote/schedulerclient.h"

#include "core/shellquote.h"
#include "remote/connection.h"

namespace torchdeck::remote {

namespace {
constexpr int scriptMode = 0700;
}

SchedulerClient::SchedulerClient(Connection *connection, SchedulerCommands commands, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_commands(std::move(commands))
{
    qRegisterMetaType<JobListResult>();
}

void SchedulerClient::run(const QString &what, const QStringList &argv, const QString &dir,
                          const std::function<void(const QByteArray &, const QByteArray &, int)> &then,
                          const std::function<void(const QString &)> &interrupted)
{
    if (!m_connection)
        return emit failed(tr("%1: the connection is gone").arg(what));
    ++m_commandsRun;
    const QString command =
        (dir.isEmpty() ? QString() : QStringLiteral("cd ") + shellQuote(dir) + QStringLiteral(" && ")) +
        shellJoin(argv);
    RemoteCommand *remote = m_connection->run(command);
    connect(remote, &RemoteCommand::failed, this, [this, what, remote, interrupted](const QString &error) {
        if (interrupted && remote->wasInterrupted())
            return interrupted(what + u": " + error);
        emit failed(what + u": " + error);
    });
    connect(remote, &RemoteCommand::finished, this,
            [then](const ExecResult &result) { then(result.out, result.err, result.exitCode); });
}

void SchedulerClient::submit(const QString &script, const QString &remoteDir, const QString &fileName,
                             const SubmitDependency &after)
{
    run(tr("creating %1").arg(remoteDir), {tr("mkdir"), tr("-p"), remoteDir}, {},
        [=](const QByteArray &, const QByteArray &err, int exitCode) {
            if (exitCode != 0)
                return emit failed(tr("cannot create %1: %2").arg(remoteDir, QString::fromUtf8(err.trimmed())));
            uploadScript(script, remoteDir, remoteDir + u'/' + fileName, after);
        });
}

void SchedulerClient::uploadScript(const QString &script, const QString &remoteDir, const QString &path,
                                   const SubmitDependency &after)
{
    if (!m_connection)
        return emit failed(tr("submitting: the connection is gone"));
    RemoteUpload *upload = m_connection->uploadData(script.toUtf8(), path, scriptMode);
    connect(upload, &RemoteUpload::failed, this,
            [this](const QString &error) { emit failed(tr("uploading the job script: %1").arg(error)); });
    connect(upload, &RemoteUpload::finished, this, [=] { submitUploaded(remoteDir, path, after); });
}

void SchedulerClient::submitUploaded(const QString &remoteDir, const QString &path, const SubmitDependency &after)
{
    const SubmitCommand submit = m_commands.submit(path, after);
    run(
        tr("submitting %1").arg(path), submit.argv, remoteDir,
        [=](const QByteArray &out, const QByteArray &err, int exitCode) {
            const SubmitResult result = submit.parse(out);
            if (exitCode != 0 || !result.ok()) {
                // The site's own words (a job_submit plugin's, "Invalid account or account/partition
                // combination") with the command that got them, as the user would type it.
                const QByteArray said = err.trimmed().isEmpty() ? out.trimmed() : err.trimmed();
                QStringList command;
                for (const QString &word : submit.argv)
                    command.append(shellQuote(word));
                return emit failed(tr("the scheduler refused the job: `%1` exited %2 saying: %3")
                                       .arg(command.join(u' '))
                                       .arg(exitCode)
                                       .arg(QString::fromUtf8(said)));
            }
            emit submitted(result.jobId, path);
        },
        [this](const QString &error) { emit submitInterrupted(error); });
}

void SchedulerClient::findNamed(const QString &jobName, const QString &scriptPath)
{
    find(m_commands.queryNamed(jobName, scriptPath), tr("looking for job %1").arg(jobName));
}

void SchedulerClient::find(const QueryCommand &query, const QString &what)
{
    if (query.argv.isEmpty())
        return emit found({});
    run(what, query.argv, {}, [this, query](const QByteArray &out, const QByteArray &err, int exitCode) {
        if (exitCode != 0 && !reportsUnknownJob(err))
            return emit failed(
                tr("the job query failed (exit code %1): %2").arg(exitCode).arg(QString::fromUtf8(err.trimmed())));
        emit found(exitCode == 0 ? query.parse(out) : JobListResult{});
    });
}

void SchedulerClient::poll(const QStringList &ids)
{
    const QueryCommand query = m_commands.query(ids);
    if (query.argv.isEmpty())
        return emit polled({});
    if (m_connection)
        m_connection->countSchedulerQuery();
    run(tr("polling %1 job(s)").arg(ids.size()), query.argv, {},
        [this, query, ids](const QByteArray &out, const QByteArray &err, int exitCode) {
            if (exitCode != 0 && !reportsUnknownJob(err))
                return emit failed(
                    tr("the job query failed (exit code %1): %2").arg(exitCode).arg(QString::fromUtf8(err.trimmed())));
            JobListResult listed = exitCode == 0 ? query.parse(out) : JobListResult{};
            QStringList missing;
            for (const QString &id : ids) {
                if (!listed.find(id))
                    missing.append(id);
            }
            pollFinished(std::move(listed), missing);
        });
}

void SchedulerClient::pollFinished(JobListResult listed, const QStringList &missing)
{
    const QueryCommand history = m_commands.queryFinished(missing);
    if (history.argv.isEmpty())
        return emit polled(listed);
    if (m_connection)
        m_connection->countSchedulerQuery();
    run(tr("looking up %1 finished job(s)").arg(missing.size()), history.argv, {},
        [this, history, listed](const QByteArray &out, const QByteArray &err, int exitCode) mutable {
            if (exitCode != 0 && !reportsUnknownJob(err))
                listed.errors.append(tr("the history query failed (exit code %1): %2")
                                         .arg(exitCode)
                                         .arg(QString::fromUtf8(err.trimmed())));
            else if (exitCode == 0) {
                const JobListResult finished = history.parse(out);
                listed.jobs.append(finished.jobs);
                listed.errors.append(finished.errors);
            }
            emit polled(listed);
        });
}

void SchedulerClient::act(SchedulerAction action, const QStringList &ids)
{
    runAction(action, ids, [this, action, ids] { emit actionDone(action, ids); });
}

void SchedulerClient::actInTurn(SchedulerAction action, const QStringList &ids)
{
    actFrom(action, ids, 0);
}

void SchedulerClient::actFrom(SchedulerAction action, const QStringList &ids, qsizetype index)
{
    if (index == ids.size())
        return emit actionDone(action, ids);
    runAction(action, {ids.at(index)}, [this, action, ids, index] {
        emit actedOn(action, ids.at(index));
        actFrom(action, ids, index + 1);
    });
}

void SchedulerClient::runAction(SchedulerAction action, const QStringList &ids, const std::function<void()> &then)
{
    const QStringList argv = m_commands.action(action, ids);
    if (argv.isEmpty())
        return emit failed(tr("this scheduler cannot do that to a job"));
    run(argv.first(), argv, {}, [this, argv, then](const QByteArray &, const QByteArray &err, int exitCode) {
        if (exitCode != 0)
            return emit failed(tr("%1 failed (exit code %2): %3")
                                   .arg(shellJoin(argv))
                                   .arg(exitCode)
                                   .arg(QString::fromUtf8(err.trimmed())));
        then();
    });
}

} // namespace torchdeck::remote
