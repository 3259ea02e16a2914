// ClusterSession's operations on a run's whole directory: listing it, pulling files to the laptop (checked by size
// and SHA-256 before they take their names; a broken download resumed by asking again), and deleting runs with it.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/runs/runfiles.h"
#include "core/store/runstore.h"
#include "session/internal/sessioninternals.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStorageInfo>
#include <QThread>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace torchdeck {

namespace {
constexpr int listDeadlineMs = 120000;
constexpr int sumDeadlineMs = 30 * 60 * 1000; // SHA-256 of checkpoints of many GB on a busy login node
const QString partSuffix = QStringLiteral(".torchdeck-part");

QString said(const QByteArray &err, int exitCode)
{
    const QString text = QString::fromUtf8(err.trimmed());
    return text.isEmpty() ? ClusterSession::tr("exit code %1").arg(exitCode) : text;
}

// The file's SHA-256 (lowercase hex) computed off the agent's thread: then(hex, error).
void hashFile(QObject *context, const QString &path, const std::function<void(QString, QString)> &then)
{
    auto result = std::make_shared<std::pair<QString, QString>>();
    QThread *thread = QThread::create([path, result] {
        QFile file(path);
        QCryptographicHash hash(QCryptographicHash::Sha256);
        if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file))
            result->second = ClusterSession::tr("cannot read %1: %2").arg(path, file.errorString());
        else
            result->first = QString::fromLatin1(hash.result().toHex());
    });
    QObject::connect(thread, &QThread::finished, context, [result, then] { then(result->first, result->second); });
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

} // namespace

// What a pull copies, one file after the other.
struct ClusterSession::PullPlan {
    QList<RemoteFileSum> files;
    QString to;
    qsizetype next = 0;
    bool retried = false; // the current file was started again from nothing after its checksum differed
    agent::Pull::Reply reply;

    const RemoteFileSum &file() const { return files.at(next); }
    QString local() const { return QDir(to).filePath(file().path.section(u'/', -1)); }
    QString part() const { return local() + partSuffix; }
};

SessionOperation *ClusterSession::listRunFiles(const QString &runId, const QString &path)
{
    const RunPath relative = cleanRunPath(path);
    if (!relative.error.isEmpty())
        return SessionOperation::alreadyFailed(relative.error, this);
    auto *operation = new SessionOperation(this);
    whenConnected(
        operation,
        [this, operation, runId, relative] {
            const auto jobs = m_store->jobs(runId);
            const QString directory = runDirectoryOn(name(), runId, jobs.value, workDirectory());
            if (directory.isEmpty())
                return operation->fail(tr("run %1 has no directory on %2 yet").arg(runId.left(8), name()));
            runCommand(
                operation, listRunFilesCommand(directory, relative.path),
                [this, operation, runId, directory, jobs](int exitCode, const QByteArray &out, const QByteArray &err) {
                    if (exitCode != 0)
                        return operation->fail(tr("run %1 on %2: %3").arg(runId.left(8), name(), said(err, exitCode)));
                    QList<RunFile> files = parseRunFiles(out);
                    const auto records = checkpointsHere(runId);
                    QStringList present;
                    for (const RunFile &file : std::as_const(files))
                        present.append(directory + u'/' + file.path);
                    const RunSeries *runSeries = series(runId);
                    markRunFiles(files, directory,
                                 markCheckpoints(records.value, present, runSeries ? *runSeries : RunSeries{}),
                                 jobs.value);
                    agent::RunFiles::Reply reply{directory, {}};
                    for (const RunFile &file : std::as_const(files))
                        reply.files.append({file.path, QString(QChar::fromLatin1(file.kind)), file.bytes,
                                            qint64(file.time * 1000), file.linkTarget, file.attempt, file.latest,
                                            file.best});
                    operation->finishWith(reply);
                },
                [this, operation, runId](const QString &error) {
                    operation->fail(tr("run %1 on %2: %3").arg(runId.left(8), name(), error));
                },
                listDeadlineMs);
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

SessionOperation *ClusterSession::pullRunFiles(const QString &runId, const QStringList &files,
                                               const QString &checkpoint, const QString &to)
{
    if (files.isEmpty() && checkpoint.isEmpty())
        return SessionOperation::alreadyFailed(tr("name the files to pull, or a checkpoint"), this);
    if (!QDir::isAbsolutePath(to))
        return SessionOperation::alreadyFailed(tr("the local directory must be absolute: %1").arg(to), this);
    QStringList wanted;
    for (const QString &file : files) {
        const RunPath relative = cleanRunPath(file);
        if (!relative.error.isEmpty())
            return SessionOperation::alreadyFailed(relative.error, this);
        if (relative.path.isEmpty())
            return SessionOperation::alreadyFailed(tr("name a file, not the run's directory"), this);
        wanted.append(relative.path);
    }
    auto *operation = new SessionOperation(this);
    sumRunFiles(
        operation, runId, wanted, checkpoint,
        [this, operation, to](const QList<RemoteFileSum> &sums, const QString &) {
            QStringList names; // each lands in `to` under its own name: two of one name would be one file
            for (const RemoteFileSum &file : sums) {
                const QString name = file.path.section(u'/', -1);
                if (names.contains(name))
                    return operation->fail(
                        tr("two of the files are called %1: pull them one at a time, to different directories")
                            .arg(name));
                names.append(name);
            }
            if (!QDir().mkpath(to))
                return operation->fail(tr("cannot make the directory %1").arg(to));
            auto plan = std::make_shared<PullPlan>();
            plan->files = sums;
            plan->to = to;
            QList<qint64> there; // what an earlier try left, whole (its size right) or partial
            for (plan->next = 0; plan->next < sums.size(); ++plan->next)
                there.append(QFileInfo(plan->local()).size() == plan->file().bytes ? plan->file().bytes
                                                                                   : QFileInfo(plan->part()).size());
            plan->next = 0;
            if (const QString problem = localSpaceProblem(sums, there, QStorageInfo(to).bytesAvailable(), to);
                !problem.isEmpty())
                return operation->fail(problem);
            pullNext(operation, plan);
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

void ClusterSession::sumRunFiles(QObject *context, const QString &runId, const QStringList &wanted,
                                 const QString &checkpoint,
                                 const std::function<void(const QList<RemoteFileSum> &, const QString &)> &then,
                                 const std::function<void(const QString &)> &failed)
{
    auto sum = [this, context, runId, then, failed](const QStringList &paths, const QString &directory) {
        runCommand(
            context, sumRunFilesCommand(directory, paths),
            [this, runId, paths, directory, then, failed](int exitCode, const QByteArray &out, const QByteArray &err) {
                if (exitCode != 0)
                    return failed(tr("run %1 on %2: %3").arg(runId.left(8), name(), said(err, exitCode)));
                const QList<RemoteFileSum> sums = parseRunFileSums(out, paths);
                QStringList problems;
                for (const RemoteFileSum &s : sums)
                    if (!s.error.isEmpty())
                        problems.append(s.error);
                if (!problems.isEmpty())
                    return failed(problems.join(QStringLiteral("; ")));
                then(sums, directory);
            },
            [this, runId, failed](const QString &error) {
                failed(tr("run %1 on %2: %3").arg(runId.left(8), name(), error));
            },
            sumDeadlineMs);
    };
    whenConnected(
        context,
        [this, context, runId, wanted, checkpoint, sum, failed] {
            const auto jobs = m_store->jobs(runId);
            const QString directory = runDirectoryOn(name(), runId, jobs.value, workDirectory());
            if (directory.isEmpty())
                return failed(tr("run %1 has no directory on %2 yet").arg(runId.left(8), name()));
            if (checkpoint.isEmpty())
                return sum(wanted, directory);
            SessionOperation *listing = presentCheckpoints(runId);
            connect(listing, &SessionOperation::failed, context, failed);
            onReply<agent::Checkpoints>(
                listing, context,
                [this, runId, wanted, checkpoint, sum, directory, failed](const agent::Checkpoints::Reply &r) {
                    const auto records = checkpointsHere(runId);
                    const RunSeries *runSeries = series(runId);
                    QString chosen;
                    for (const CheckpointEntry &entry :
                         markCheckpoints(records.value, r.present, runSeries ? *runSeries : RunSeries{}))
                        if (entry.present &&
                            ((checkpoint == u"latest" && entry.latest) || (checkpoint == u"best" && entry.best)))
                            chosen = entry.record.path;
                    if (checkpoint != u"latest" && checkpoint != u"best")
                        chosen = checkpointNamed(records.value, checkpoint);
                    if (chosen.isEmpty())
                        return failed(tr("run %1 has no checkpoint '%2' on %3 (see torchdeck checkpoints %1)")
                                          .arg(runId.left(8), checkpoint, name()));
                    if (!chosen.startsWith(directory + u'/'))
                        return failed(
                            tr("checkpoint %1 lies outside the run's directory %2: refused").arg(chosen, directory));
                    QStringList paths = wanted;
                    paths.append(chosen.mid(directory.size() + 1));
                    sum(paths, directory);
                });
        },
        failed);
}

namespace {
// Keeps the file at `path` as NAME.~N~, one past the highest N there (GNU's numbered backups), by a hard link: the file
// stays at its name until the new one replaces it, and no file of the backup's name is ever replaced. Where the
// filesystem has no hard links, by rename. The backup's name, or empty with `error`.
QString keepAside(const QString &path, QString *error)
{
    const QFileInfo info(path);
    static const QRegularExpression numbered(QStringLiteral("\\.~(\\d+)~\\z"));
    int highest = 0;
    for (const QString &name : info.dir().entryList({info.fileName() + QStringLiteral(".~*~")},
                                                    QDir::AllEntries | QDir::Hidden | QDir::System))
        if (const QRegularExpressionMatch m = numbered.match(name);
            m.hasMatch() && name.size() == info.fileName().size() + m.capturedLength())
            highest = std::max(highest, m.captured(1).toInt());
    for (int n = highest + 1;; ++n) {
        const QString backup = QStringLiteral("%1.~%2~").arg(path).arg(n);
        const QByteArray from = QFile::encodeName(path);
        const QByteArray to = QFile::encodeName(backup);
        if (::link(from.constData(), to.constData()) == 0)
            return backup;
        if (errno == EEXIST)
            continue;
        if (!QFileInfo::exists(backup) && std::rename(from.constData(), to.constData()) == 0)
            return backup;
        *error = ClusterSession::tr("cannot keep %1 aside as %2: %3")
                     .arg(path, backup, QString::fromLocal8Bit(std::strerror(errno)));
        return {};
    }
}

// rename(2): a file of the new name is replaced at once, never leaving none. Fails `operation` (when given) saying why.
bool renameFile(const QString &from, const QString &to, SessionOperation *operation)
{
    if (std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0)
        return true;
    const int cause = errno;
    if (operation)
        operation->fail(ClusterSession::tr("cannot rename %1 to %2: %3")
                            .arg(from, to, QString::fromLocal8Bit(std::strerror(cause))));
    return false;
}
} // namespace

void ClusterSession::pullNext(SessionOperation *operation, std::shared_ptr<PullPlan> plan)
{
    if (plan->next >= plan->files.size())
        return operation->finishWith(plan->reply);
    const QString local = plan->local();
    if (QFileInfo::exists(local) && !QFileInfo(local).isFile())
        return operation->fail(
            tr("%1 is there already and is no file: nothing pulled to it (choose another --to)").arg(local));
    if (QFileInfo::exists(local) && QFileInfo(local).size() == plan->file().bytes)
        return hashFile(operation, local, [this, operation, plan](const QString &hex, const QString &) {
            if (hex == plan->file().sha256)
                return pulled(operation, plan, 0, true);
            downloadOne(operation, plan);
        });
    downloadOne(operation, plan);
}

void ClusterSession::pulled(SessionOperation *operation, std::shared_ptr<PullPlan> plan, qint64 resumedAt,
                            bool alreadyThere, const QString &keptAs)
{
    const RemoteFileSum &file = plan->file();
    plan->reply.pulled.append({file.path, plan->local(), file.bytes, file.sha256, resumedAt, alreadyThere, keptAs});
    ++plan->next;
    plan->retried = false;
    pullNext(operation, plan);
}

void ClusterSession::downloadOne(SessionOperation *operation, std::shared_ptr<PullPlan> plan)
{
    const RemoteFileSum file = plan->file();
    const QString part = plan->part();
    remote::RemoteDownload *download = m_parts->connection.download(file.realPath, part, file.bytes);
    auto resumedAt = std::make_shared<qint64>(-1);
    connect(download, &remote::RemoteDownload::progress, operation,
            [operation, file, resumedAt](qint64 bytes, qint64 total) {
                if (*resumedAt < 0)
                    *resumedAt = bytes;
                operation->reportProgress(file.path, bytes, total);
            });
    connect(download, &remote::RemoteDownload::failed, operation, [operation, file, part](const QString &error) {
        operation->fail(tr("pulling %1 stopped at %2 of %3 bytes: %4. The part is kept as %5: the same pull goes on "
                           "from there")
                            .arg(file.path)
                            .arg(QFileInfo(part).size())
                            .arg(file.bytes)
                            .arg(error, part));
    });
    connect(download, &remote::RemoteDownload::finished, operation, [this, operation, plan, resumedAt](qint64) {
        hashFile(operation, plan->part(), [this, operation, plan, resumedAt](const QString &hex, const QString &error) {
            if (!error.isEmpty())
                return operation->fail(error);
            const RemoteFileSum &arrived = plan->file();
            if (hex != arrived.sha256) {
                QFile::remove(plan->part());
                if (!plan->retried) { // an old part of another version of the file: once more, from nothing
                    plan->retried = true;
                    return downloadOne(operation, plan);
                }
                return operation->fail(tr("%1 arrived with SHA-256 %2, not the cluster's %3: does it change on the "
                                          "cluster as it is read?")
                                           .arg(arrived.path, hex, arrived.sha256));
            }
            // A different file of the name (another run's job-0.sh, an older log) is moved aside, as cp --backup
            // would, never replaced: the pull loses nothing.
            QString keptAs;
            if (QFileInfo::exists(plan->local())) {
                QString why;
                keptAs = keepAside(plan->local(), &why);
                if (keptAs.isEmpty())
                    return operation->fail(why);
            }
            if (!renameFile(plan->part(), plan->local(), operation)) {
                // A backup by link leaves the file at its name: the link goes; one by rename comes back.
                if (!keptAs.isEmpty() && !QFileInfo::exists(plan->local()))
                    renameFile(keptAs, plan->local(), nullptr);
                else if (!keptAs.isEmpty())
                    QFile::remove(keptAs);
                return;
            }
            pulled(operation, plan, std::max<qint64>(*resumedAt, 0), false, keptAs);
        });
    });
    operation->setStopHandler([download = QPointer<remote::RemoteDownload>(download), operation] {
        if (download)
            download->stop();
        operation->fail(tr("pull stopped"));
    });
}

} // namespace torchdeck
