#pragma once

#include "core/metrics/metricevent.h"
#include "core/store/runrecord.h"

#include <QByteArray>
#include <QHash>
#include <QList>

namespace torchdeck {

// The files a custom command's own logger writes under its run directory (TensorBoard event files,
// Lightning's metrics.csv): how a pass finds them, which changed since the store last read them, from where
// to read each, and what its new bytes give.

// One POSIX shell command that prints "<mtime> <size> <path>\0" for each such file under the run directories, and
// for each directory's first script (job-0.sh); the code snapshot's files (hard links) are left out: a local
// run's outputs uploaded with --code are no data of this run.
QString loggerFilesFindCommand(const QStringList &runDirectories);

// What that command printed, for each of the run directories: the files its jobs wrote (newer than its first
// script; none before that script exists). Entries that are not "<mtime> <size> <path>" are skipped.
QHash<QString, QList<LoggerFileRecord>> parseFoundLoggerFiles(const QByteArray &findOutput,
                                                              const QStringList &runDirectories);

struct LoggerFileChange {
    LoggerFileRecord before; // as stored; a new file: at offset 0, of the attempt that found it
    LoggerFileRecord found;  // its size now, of the attempt that first wrote it
};

// The found files whose size differs from what the store last read, in the order found.
QList<LoggerFileChange> changedLoggerFiles(const QList<LoggerFileRecord> &found, const QList<LoggerFileRecord> &stored,
                                           int attempt);

bool isLightningCsv(const QString &path);

// Where to read a changed file from: Lightning rewrites its CSV whole when a column appears, so it is read
// whole and counted in rows; event files only grow.
qint64 loggerFileReadOffset(const LoggerFileChange &change);

struct LoggerFileRead {
    QList<MetricEvent> events; // of source LoggerFiles, stamped `now` where the file gave no time
    LoggerFileRecord after;    // the record to store: how far it was read, at what size
    bool changed = false;      // false: nothing to store
    QString skipped;           // what was skipped as damaged, for the pass's problems
    QString runMessage;        // what the run should say (an unreadable or damaged event file)
};

// What `bytes`, read from loggerFileReadOffset(change), give.
LoggerFileRead readLoggerFileBytes(const LoggerFileChange &change, const QByteArray &bytes, double now);

} // namespace torchdeck
