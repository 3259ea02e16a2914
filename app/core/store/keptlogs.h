#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace torchdeck {

// A job's logs kept on this machine when it ended (the agent's tracker), so that `logs` shows them without the
// cluster, and after it is gone: beside the run store, logs/<run>/attempt-<N>.out and .err. A log longer than
// kKeptLogBytes is kept as its end; NAME.size then holds its whole size.
constexpr qint64 kKeptLogBytes = qint64(8) * 1024 * 1024;

struct KeptLog {
    QByteArray out;
    QByteArray err;
    qint64 outSize = -1; // the whole log's size where only its end is kept; -1: kept whole
    qint64 errSize = -1;
    bool truncated() const { return outSize >= 0 || errSize >= 0; }
};

// The folder of a run's kept logs, beside the store at `storePath` (the store's database file).
QString keptLogDirectory(const QString &storePath, const QString &runId);
// The logs kept of an attempt; nullopt when none were (the job had not ended, or they could not be read).
std::optional<KeptLog> readKeptLog(const QString &storePath, const QString &runId, int attempt);
// Keeps an attempt's logs (the end of each when `*Size` is its whole size, past kKeptLogBytes); the .out file comes
// last, by rename, so a kept log is whole or absent. False with `error` when it cannot be written.
bool writeKeptLog(const QString &storePath, const QString &runId, int attempt, const KeptLog &log, QString *error);
// Whether an attempt's logs are settled here: kept, or marked as none to keep (markNoKeptLog).
bool keptLogSettled(const QString &storePath, const QString &runId, int attempt);
// Marks an ended attempt as having no log to keep (it wrote none), so that no later agent asks its cluster again.
bool markNoKeptLog(const QString &storePath, const QString &runId, int attempt, QString *error);
// Removes a run's kept logs (its record is deleted).
void removeKeptLogs(const QString &storePath, const QString &runId);

} // namespace torchdeck
