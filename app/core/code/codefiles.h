#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// One file of a user's project as it is snapshotted: its path relative to the project ('/'-separated), its
// size, whether it is executable, and (once hashed) the SHA-256 of its content.
struct CodeFile {
    QString path;
    qint64 size = 0;
    bool executable = false;
    QString hash; // lowercase hex
};

struct CodeListing {
    QList<CodeFile> files;    // sorted by path
    QString source;           // "git" (the files git lists) or "folder" (every file but the ignored ones)
    QString error;            // empty on success
    QStringList linksOutside; // files that are links to a file outside the folder, sent as that file
    bool ok() const { return error.isEmpty(); }
};

// What a snapshot leaves out when the folder is no git work tree: version control, caches, environments.
QStringList defaultCodeIgnorePatterns();
// The file a project names more patterns in (one shell glob per line; '#' comments; a trailing '/' matches
// directories only), as .gitignore does for git work trees.
inline const QString kCodeIgnoreFile = QStringLiteral(".torchdeckignore");

// The files of a project directory to snapshot: the ones git lists (tracked, and untracked ones not ignored)
// when `directory` is in a git work tree (and not ignored by it), else every regular file except the ignored patterns.
// Symbolic links to files count as the files they point to; links to directories are not followed.
CodeListing listCodeFiles(const QString &directory);

// Whether a relative path (or one of its directories) matches one of the patterns.
bool isIgnoredCodePath(const QString &relativePath, bool isDirectory, const QStringList &patterns);

} // namespace torchdeck
