#include "core/code/codefiles.h"

#include "core/coretr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <algorithm>

namespace torchdeck {

namespace {

bool matches(const QString &pattern, const QString &text)
{
    const QRegularExpression regex(QRegularExpression::wildcardToRegularExpression(pattern));
    return regex.isValid() && regex.match(text).hasMatch();
}

bool addFile(const QFileInfo &info, const QString &relativePath, CodeListing *listing, const QString &canonicalRoot)
{
    // A link counts as what it points to; a broken one, a directory or a device is no file of the project.
    const QFileInfo target(info.canonicalFilePath());
    if (!target.exists() || !target.isFile())
        return false;
    listing->files.append({relativePath, target.size(), target.isExecutable(), {}});
    if (info.isSymLink() && !target.filePath().startsWith(canonicalRoot + u'/'))
        listing->linksOutside.append(relativePath); // sent all the same, and said
    return true;
}

void walk(const QDir &root, const QString &prefix, const QStringList &patterns, CodeListing *listing)
{
    const QDir dir(root.filePath(prefix));
    const QFileInfoList entries =
        dir.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo &entry : entries) {
        const QString relative = prefix.isEmpty() ? entry.fileName() : prefix + u'/' + entry.fileName();
        const bool isDirectory = entry.isDir() && !entry.isSymLink();
        if (isIgnoredCodePath(relative, isDirectory, patterns))
            continue;
        if (isDirectory)
            walk(root, relative, patterns, listing);
        else if (!entry.isDir())
            addFile(entry, relative, listing, root.canonicalPath());
    }
}

QStringList ignoreFilePatterns(const QString &directory)
{
    QFile file(QDir(directory).filePath(kCodeIgnoreFile));
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    QStringList patterns;
    const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n');
    for (const QString &line : lines) {
        const QString pattern = line.trimmed();
        if (!pattern.isEmpty() && !pattern.startsWith(u'#'))
            patterns.append(pattern);
    }
    return patterns;
}

// The files git lists; nothing (and `isGit` false) when git is missing or the folder is no work tree.
QStringList gitFiles(const QString &directory, bool *isGit, QString *error)
{
    QProcess git;
    git.setWorkingDirectory(directory);
    git.start(QStringLiteral("git"), {QStringLiteral("rev-parse"), QStringLiteral("--is-inside-work-tree")});
    if (!git.waitForFinished(30000) || git.exitStatus() != QProcess::NormalExit || git.exitCode() != 0 ||
        git.readAllStandardOutput().trimmed() != "true") {
        *isGit = false;
        return {};
    }
    // A folder that an enclosing repository ignores (a project inside a build tree) is no part of it.
    git.start(QStringLiteral("git"), {QStringLiteral("check-ignore"), QStringLiteral("-q"), QStringLiteral(".")});
    if (git.waitForFinished(30000) && git.exitStatus() == QProcess::NormalExit && git.exitCode() == 0) {
        *isGit = false;
        return {};
    }
    *isGit = true;
    git.start(QStringLiteral("git"), {QStringLiteral("ls-files"), QStringLiteral("-z"), QStringLiteral("--cached"),
                                      QStringLiteral("--others"), QStringLiteral("--exclude-standard")});
    if (!git.waitForFinished(120000) || git.exitStatus() != QProcess::NormalExit || git.exitCode() != 0) {
        *error = core::Tr::tr("git ls-files failed in %1: %2")
                     .arg(directory, QString::fromUtf8(git.readAllStandardError().trimmed()));
        return {};
    }
    QStringList paths;
    const QList<QByteArray> names = git.readAllStandardOutput().split('\0');
    for (const QByteArray &name : names) {
        if (!name.isEmpty())
            paths.append(QString::fromUtf8(name));
    }
    return paths;
}

} // namespace

QStringList defaultCodeIgnorePatterns()
{
    return {QStringLiteral(".git/"), QStringLiteral(".hg/"), QStringLiteral(".svn/"), QStringLiteral("__pycache__/"),
            QStringLiteral("*.pyc"), QStringLiteral(".ipynb_checkpoints/"), QStringLiteral(".venv/"),
            QStringLiteral("venv/"), QStringLiteral("*.egg-info/"), QStringLiteral(".mypy_cache/"),
            QStringLiteral(".pytest_cache/"), QStringLiteral(".DS_Store"),
            // A local run's outputs: the cluster's run would read them as its own.
            QStringLiteral("lightning_logs/"), QStringLiteral("wandb/"), QStringLiteral("*.tfevents.*")};
}

bool isIgnoredCodePath(const QString &relativePath, bool isDirectory, const QStringList &patterns)
{
    const QStringList parts = relativePath.split(u'/', Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const bool directory = i + 1 < parts.size() || isDirectory;
        const QString prefix = parts.mid(0, i + 1).join(u'/');
        for (QString pattern : patterns) {
            const bool directoriesOnly = pattern.endsWith(u'/');
            if (directoriesOnly)
                pattern.chop(1);
            // As .gitignore: a leading or inner '/' anchors the pattern at the folder's root.
            const bool anchored = pattern.contains(u'/');
            if (pattern.startsWith(u'/'))
                pattern.remove(0, 1);
            if (pattern.isEmpty() || (directoriesOnly && !directory))
                continue;
            if (matches(pattern, anchored ? prefix : parts.at(i)))
                return true;
        }
    }
    return false;
}

CodeListing listCodeFiles(const QString &directory)
{
    CodeListing listing;
    const QFileInfo info(directory);
    if (!info.exists() || !info.isDir()) {
        listing.error = core::Tr::tr("%1 is no folder").arg(directory);
        return listing;
    }
    const QDir root(info.absoluteFilePath());
    bool isGit = false;
    const QStringList tracked = gitFiles(root.path(), &isGit, &listing.error);
    if (!listing.ok())
        return listing;
    if (isGit) {
        listing.source = QStringLiteral("git");
        for (const QString &path : tracked)
            addFile(QFileInfo(root.filePath(path)), path, &listing, root.canonicalPath()); // deleted, a submodule: none
    } else {
        listing.source = QStringLiteral("folder");
        walk(root, {}, defaultCodeIgnorePatterns() + ignoreFilePatterns(root.path()), &listing);
    }
    listing.linksOutside.sort();
    std::sort(listing.files.begin(), listing.files.end(),
              [](const CodeFile &a, const CodeFile &b) { return a.path < b.path; });
    if (listing.files.isEmpty())
        listing.error = core::Tr::tr("%1 has no files to upload").arg(directory);
    return listing;
}

} // namespace torchdeck
