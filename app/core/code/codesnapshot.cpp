#include "core/code/codesnapshot.h"

#include "core/coretr.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLocale>
#include <algorithm>

namespace torchdeck {

namespace {

QString largestFiles(QList<CodeFile> files)
{
    std::sort(files.begin(), files.end(), [](const CodeFile &a, const CodeFile &b) { return a.size > b.size; });
    QStringList names;
    for (const CodeFile &file : files.mid(0, 3))
        names.append(QStringLiteral("%1 (%2)").arg(file.path, QLocale::c().formattedDataSize(file.size)));
    return names.join(QStringLiteral(", "));
}

QString tooBig(const CodeListing &listing, qint64 bytes)
{
    const QString ignore = listing.source == u"git" ? QStringLiteral(".gitignore") : kCodeIgnoreFile;
    return core::Tr::tr("the folder holds %1 files, %2 (the most a snapshot takes: %3 files, %4); the largest are %5. "
                        "Leave data and outputs out with %6, or give the folder of the code alone")
        .arg(listing.files.size())
        .arg(QLocale::c().formattedDataSize(bytes))
        .arg(kMaxCodeFiles)
        .arg(QLocale::c().formattedDataSize(kMaxCodeBytes), largestFiles(listing.files), ignore);
}

} // namespace

qint64 CodeSnapshot::totalBytes() const
{
    qint64 total = 0;
    for (const CodeFile &file : files)
        total += file.size;
    return total;
}

CodeSnapshot makeCodeSnapshot(const QString &directory, const std::function<bool(qint64, qint64)> &progress)
{
    CodeSnapshot snapshot;
    snapshot.directory = QDir(directory).absolutePath();
    CodeListing listing = listCodeFiles(snapshot.directory);
    snapshot.source = listing.source;
    if (!listing.ok()) {
        snapshot.error = listing.error;
        return snapshot;
    }
    qint64 total = 0;
    for (const CodeFile &file : std::as_const(listing.files))
        total += file.size;
    if (total > kMaxCodeBytes || listing.files.size() > kMaxCodeFiles) {
        snapshot.error = core::Tr::tr("%1: %2").arg(directory, tooBig(listing, total));
        return snapshot;
    }
    const QDir root(snapshot.directory);
    qint64 done = 0;
    for (CodeFile &file : listing.files) {
        QFile in(root.filePath(file.path));
        QCryptographicHash hash(QCryptographicHash::Sha256);
        if (!in.open(QIODevice::ReadOnly) || !hash.addData(&in)) {
            snapshot.error = core::Tr::tr("cannot read %1: %2").arg(in.fileName(), in.errorString());
            return snapshot;
        }
        file.hash = QString::fromLatin1(hash.result().toHex());
        file.size = in.size(); // as hashed: it may have changed since it was listed
        done += file.size;
        if (progress && !progress(done, total)) {
            snapshot.error = core::Tr::tr("stopped");
            return snapshot;
        }
    }
    snapshot.files = listing.files;
    snapshot.linksOutside = listing.linksOutside;
    snapshot.id = codeSnapshotIdOf(codeManifest(snapshot.files));
    return snapshot;
}

QString codeObjectName(const CodeFile &file)
{
    return file.executable ? file.hash + u'x' : file.hash;
}

QString codeObjectSha256(const QString &object)
{
    return object.left(64);
}

int codeObjectMode(const QString &object)
{
    return object.endsWith(u'x') ? 0555 : 0444;
}

QByteArray codeManifest(const QList<CodeFile> &files)
{
    QByteArray manifest;
    for (const CodeFile &file : files) {
        manifest += codeObjectName(file).toLatin1();
        manifest += '\0';
        manifest += file.path.toUtf8();
        manifest += '\0';
    }
    return manifest;
}

QString codeSnapshotIdOf(const QByteArray &manifest)
{
    // 80 bits: no collision among one user's snapshots, and a path short enough to read.
    return QString::fromLatin1(QCryptographicHash::hash(manifest, QCryptographicHash::Sha256).toHex().left(20));
}

} // namespace torchdeck
