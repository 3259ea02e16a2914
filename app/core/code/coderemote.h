#pragma once

#include <QString>
#include <QStringList>

namespace torchdeck {

// Where code snapshots live on a cluster, under the absolute work directory:
//   <work>/code/objects/<hash>[x]   each file's content once, read-only, whatever snapshots share it
//   <work>/code/manifests/<id>      a snapshot: its files' objects and paths (core/code/codesnapshot.h)
// A run's command runs in <run directory>/code, hard links to the objects made from the manifest, so
// outputs written there stay the run's and the snapshot's files are never copied on the cluster.
struct CodeStore {
    QString root; // <work>/code

    QString objectPath(const QString &object) const { return root + QStringLiteral("/objects/") + object; }
    QString manifestPath(const QString &id) const { return root + QStringLiteral("/manifests/") + id; }

    // Makes the folders (umask 077) and prints the root.
    QString prepareCommand() const;
    // Prints "present" when manifest `id` is on the cluster already (and touches it: a prune spares it).
    QString manifestPresentCommand(const QString &id) const;
    // Prints the objects of manifest `id` that are not on the cluster yet, one per line; touches the others.
    QString missingObjectsCommand(const QString &id) const;
    // Makes <runDirectory>/code from manifest `id` unless it exists (a resume): staged, then renamed into
    // place. Fails with a message naming the snapshot when the manifest or one of its objects is gone.
    QString linkCommand(const QString &id, const QString &runDirectory) const;
    // Prints "manifest <id> <files> <bytes> <mtime>" per snapshot.
    QString listCommand() const;
    // Deletes the manifests not in `keep` that are older than an hour (a submission uploads its manifest
    // first: a newer one may belong to a run not recorded yet), then every object no manifest left names
    // that no submission touched within the hour.
    // Uploads broken off over an hour ago go too. Prints "deleted manifest <id>" and
    // "deleted objects <count> <bytes>".
    QString pruneCommand(const QStringList &keep) const;
};

inline const QString kRunCodeFolder = QStringLiteral("code");

// Whether `id` can be a snapshot id (it ends up in shell commands and paths).
bool isCodeSnapshotId(const QString &id);

} // namespace torchdeck
