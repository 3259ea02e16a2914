#pragma once

#include "core/code/codefiles.h"

#include <QByteArray>
#include <functional>

namespace torchdeck {

// Bounds a snapshot of code: a folder of datasets or checkpoints given by mistake is refused, with its
// largest files named, before anything is uploaded.
inline constexpr qint64 kMaxCodeBytes = qint64(1) << 30;
inline constexpr int kMaxCodeFiles = 50000;

// A project's files with their content hashes, and the snapshot's id: the hash of its manifest, so the same
// code gives the same id, wherever and whenever it is uploaded.
struct CodeSnapshot {
    QString directory; // local, absolute
    QString source;    // as CodeListing::source
    QList<CodeFile> files;
    QStringList linksOutside; // as CodeListing's
    QString id;
    QString error;
    qint64 totalBytes() const;
    bool ok() const { return error.isEmpty(); }
};

// Lists and hashes `directory`. `progress(doneBytes, totalBytes)` is called as files are hashed; it returns
// false to stop (the result then carries an error).
CodeSnapshot makeCodeSnapshot(const QString &directory,
                              const std::function<bool(qint64 done, qint64 total)> &progress = {});

// The object a file is stored as on the cluster: its content hash, with "x" appended for executables (an
// object's mode is every link's mode).
QString codeObjectName(const CodeFile &file);
// What an object name says back: the SHA-256 its content must hash to, and the mode it is stored with (0555 for an
// executable's, else 0444: read-only, so that no run changes the code another runs).
QString codeObjectSha256(const QString &object);
int codeObjectMode(const QString &object);
// The manifest uploaded beside a snapshot: per file its object name and path, each ended by NUL (paths may
// hold any character but NUL), sorted by path.
QByteArray codeManifest(const QList<CodeFile> &files);
QString codeSnapshotIdOf(const QByteArray &manifest);

} // namespace torchdeck
