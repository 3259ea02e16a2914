#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace torchdeck {

// The trainer's source tree, embedded in torchdeck (resources under :/trainer/), as uploaded to clusters.
struct TrainerBundle {
    struct File {
        QString relativePath; // e.g. "dist/gloo_communicator.cpp"
        QByteArray content;
    };
    QList<File> files; // sorted by path
    QString hash;      // 16 hex digits of SHA-256 over paths and contents: the remote directory's name

    qint64 totalBytes() const;
    static TrainerBundle embedded(); // empty with no files when the resources are missing
};

// The embedded bundle's hash, computed once: where a cluster's deployment of it lives (WorkLayout).
QString embeddedTrainerHash();

} // namespace torchdeck
