#include "core/sshconfigparser.h"

#include "core/coretr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace torchdeck {

namespace {

constexpr int maxIncludeDepth = 16; // ssh's own limit
constexpr int maxFilesRead = 256;   // a config that includes the same files over and over

QString expandHome(const QString &path)
{
    if (path == u'~' || path.startsWith(QStringLiteral("~/")))
        return QDir::homePath() + path.mid(1);
    return path;
}

// The files an Include argument names: a path or a glob in the last component, sorted as ssh does.
QStringList includedFiles(const QString &arg, const QString &sshDir)
{
    QString path = expandHome(arg);
    if (QDir::isRelativePath(path))
        path = sshDir + u'/' + path;
    const QFileInfo info(path);
    const QString name = info.fileName();
    if (!name.contains(u'*') && !name.contains(u'?'))
        return {path};
    QDir dir = info.dir();
    QStringList files;
    const auto entries = dir.entryList({name}, QDir::Files, QDir::Name);
    for (const QString &entry : entries)
        files.append(dir.filePath(entry));
    return files;
}

class Reader {
public:
    explicit Reader(QString sshDir)
        : m_sshDir(std::move(sshDir))
    {
    }

    SshConfig take() { return std::move(m_config); }

    void readFile(const QString &path, const QStringList &patterns, int depth)
    {
        // A file that includes itself (or one that includes it back) is read once on that path, not again
        // and again: ssh stops such a loop only at its depth limit, after 2^16 reads of a file that includes
        // itself twice.
        const QString canonical = QFileInfo(path).canonicalFilePath();
        if (!canonical.isEmpty() && m_reading.contains(canonical)) {
            m_config.warnings.append(core::Tr::tr("%1: includes itself; not read again").arg(path));
            return;
        }
        if (++m_filesRead > maxFilesRead) {
            if (m_filesRead == maxFilesRead + 1)
                m_config.warnings.append(
                    core::Tr::tr("%1: more than %2 files included; the rest are not read").arg(path).arg(maxFilesRead));
            return;
        }
        m_reading.append(canonical);
        readLines(path, patterns, depth);
        m_reading.removeLast();
    }

private:
    void readLines(const QString &path, const QStringList &patterns, int depth)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
            if (depth > 0)
                m_config.warnings.append(core::Tr::tr("%1: cannot read included file").arg(path));
            return;
        }
        startBlock(patterns);
        int lineNumber = 0;
        while (!file.atEnd()) {
            ++lineNumber;
            const SshConfigLine line = parseSshConfigLine(QString::fromUtf8(file.readLine()));
            if (line.keyword.isEmpty())
                continue;
            if (line.args.isEmpty()) {
                warn(path, lineNumber, core::Tr::tr("'%1' has no value").arg(line.keyword));
            } else if (line.keyword == u"host") {
                startBlock(line.args);
            } else if (line.keyword == u"match") {
                startBlock({QStringLiteral("!*")}); // a block that matches nothing
            } else if (line.keyword == u"include") {
                include(path, lineNumber, line.args, depth);
            } else {
                m_config.blocks.last().options.append({line.keyword, line.args.join(u' ')});
            }
        }
    }

    void startBlock(const QStringList &patterns) { m_config.blocks.append({patterns, {}}); }

    void include(const QString &path, int lineNumber, const QStringList &args, int depth)
    {
        if (depth + 1 > maxIncludeDepth) {
            warn(path, lineNumber, core::Tr::tr("Include nested too deeply"));
            return;
        }
        const QStringList patterns = m_config.blocks.last().patterns;
        for (const QString &arg : args) {
            const auto files = includedFiles(arg, m_sshDir);
            for (const QString &included : files)
                readFile(included, patterns, depth + 1);
        }
        startBlock(patterns); // lines after the Include belong to the block it appeared in
    }

    void warn(const QString &path, int lineNumber, const QString &what)
    {
        m_config.warnings.append(QStringLiteral("%1:%2: %3").arg(path).arg(lineNumber).arg(what));
    }

    QString m_sshDir;
    SshConfig m_config;
    QStringList m_reading; // the files being read, outermost first
    int m_filesRead = 0;
};

} // namespace

SshConfigLine parseSshConfigLine(const QString &rawLine)
{
    const QString line = rawLine.trimmed();
    SshConfigLine result;
    if (line.isEmpty() || line.startsWith(u'#'))
        return result;
    qsizetype end = 0;
    while (end < line.size() && !line.at(end).isSpace() && line.at(end) != u'=')
        ++end;
    result.keyword = line.left(end).toLower();
    QString rest = line.mid(end).trimmed();
    if (rest.startsWith(u'='))
        rest = rest.mid(1).trimmed();
    QString word;
    bool quoted = false;
    bool inWord = false;
    for (const QChar c : std::as_const(rest)) {
        if (c == u'"') {
            quoted = !quoted;
            inWord = true;
        } else if (c.isSpace() && !quoted) {
            if (inWord)
                result.args.append(word);
            word.clear();
            inWord = false;
        } else {
            word.append(c);
            inWord = true;
        }
    }
    if (inWord)
        result.args.append(word);
    return result;
}

SshConfig readSshConfig(const QString &path, const QString &sshDir)
{
    Reader reader(sshDir);
    reader.readFile(path, {}, 0);
    return reader.take();
}

} // namespace torchdeck

namespace torchdeck {

QString userSshConfigPath()
{
    const QString overridden = qEnvironmentVariable("TORCHDECK_SSH_CONFIG");
    return overridden.isEmpty() ? QDir::homePath() + QStringLiteral("/.ssh/config") : overridden;
}

SshConfig readUserSshConfig()
{
    return readSshConfig(userSshConfigPath(), QDir::homePath() + QStringLiteral("/.ssh"));
}

QString noSuchClusterMessage(const QString &cluster, const SshConfig &config)
{
    const QStringList aliases = config.hostAliases();
    return aliases.isEmpty()
               ? core::Tr::tr(
                     "'%1' is no cluster of %2, which names none (scripts/sandbox start adds torchdeck-sandbox)")
                     .arg(cluster, userSshConfigPath())
               : core::Tr::tr("'%1' is no cluster of %2; its clusters: %3")
                     .arg(cluster, userSshConfigPath(), aliases.join(QStringLiteral(", ")));
}

} // namespace torchdeck
