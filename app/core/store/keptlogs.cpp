#include "core/store/keptlogs.h"

#include "core/coretr.h"
#include "core/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace torchdeck {

namespace {
QString attemptPath(const QString &storePath, const QString &runId, int attempt, const QString &suffix)
{
    return QDir(keptLogDirectory(storePath, runId)).filePath(QStringLiteral("attempt-%1.%2").arg(attempt).arg(suffix));
}

std::optional<QByteArray> readWhole(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return file.readAll();
}

qint64 wholeSize(const QString &path)
{
    const std::optional<QByteArray> text = readWhole(path + QStringLiteral(".size"));
    bool ok = false;
    const qint64 size = text ? text->trimmed().toLongLong(&ok) : -1;
    return ok ? size : -1;
}

bool writeFile(const QString &path, const QByteArray &bytes, QString *error)
{
    QSaveFile file(path); // a whole file or the one before, never part of one
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = core::Tr::tr("cannot keep the log %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}
} // namespace

QString keptLogDirectory(const QString &storePath, const QString &runId)
{
    return QFileInfo(storePath).dir().filePath(QStringLiteral("logs/") + runId);
}

std::optional<KeptLog> readKeptLog(const QString &storePath, const QString &runId, int attempt)
{
    if (storePath.isEmpty() || runId.isEmpty())
        return std::nullopt;
    const QString out = attemptPath(storePath, runId, attempt, QStringLiteral("out"));
    std::optional<QByteArray> outBytes = readWhole(out);
    if (!outBytes)
        return std::nullopt;
    const QString err = attemptPath(storePath, runId, attempt, QStringLiteral("err"));
    KeptLog log;
    log.out = *outBytes;
    log.err = readWhole(err).value_or(QByteArray());
    log.outSize = wholeSize(out);
    log.errSize = wholeSize(err);
    return log;
}

bool keptLogSettled(const QString &storePath, const QString &runId, int attempt)
{
    return QFileInfo::exists(attemptPath(storePath, runId, attempt, QStringLiteral("out"))) ||
           QFileInfo::exists(attemptPath(storePath, runId, attempt, QStringLiteral("none")));
}

bool markNoKeptLog(const QString &storePath, const QString &runId, int attempt, QString *error)
{
    if (const QString problem = makePrivateDirectory(keptLogDirectory(storePath, runId)); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    return writeFile(attemptPath(storePath, runId, attempt, QStringLiteral("none")), {}, error);
}

bool writeKeptLog(const QString &storePath, const QString &runId, int attempt, const KeptLog &log, QString *error)
{
    const QString directory = keptLogDirectory(storePath, runId);
    // A run's logs are as private as its store.
    if (const QString problem = makePrivateDirectory(directory); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    const QString out = attemptPath(storePath, runId, attempt, QStringLiteral("out"));
    const QString err = attemptPath(storePath, runId, attempt, QStringLiteral("err"));
    for (const auto &[path, size] : {std::pair{err, log.errSize}, std::pair{out, log.outSize}}) {
        if (size >= 0 && !writeFile(path + QStringLiteral(".size"), QByteArray::number(size) + '\n', error))
            return false;
    }
    if (!log.err.isEmpty() && !writeFile(err, log.err, error))
        return false;
    return writeFile(out, log.out, error); // last: its presence says the attempt's logs are kept
}

void removeKeptLogs(const QString &storePath, const QString &runId)
{
    if (!storePath.isEmpty() && !runId.isEmpty())
        QDir(keptLogDirectory(storePath, runId)).removeRecursively();
}

} // namespace torchdeck
