#include "core/runs/runfiles.h"

#include "core/coretr.h"
#include "core/shellquote.h"

#include <QLocale>
#include <QRegularExpression>
#include <algorithm>
#include <iterator>

namespace torchdeck {

namespace {
// The run's real directory in $r, or the command ends (3) saying it is gone.
QString enterRun(const QString &runDirectory)
{
    return QStringLiteral("r=$(realpath -e -- %1 2>/dev/null) || { printf '%s\\n' %2 >&2; exit 3; }; ")
        .arg(shellQuote(runDirectory),
             shellQuote(core::Tr::tr("the run's directory %1 is not on the cluster (deleted?)").arg(runDirectory)));
}

int attemptOfName(const QString &name)
{
    static const QRegularExpression patterns(QStringLiteral(
        "^(?:attempt-(\\d+)-.*\\.(?:out|err)|attempt-(\\d+)\\.job|metrics-(\\d+)\\.jsonl|job-(\\d+)\\.sh)$"));
    const QRegularExpressionMatch match = patterns.match(name);
    if (!match.hasMatch())
        return -1;
    for (int group = 1; group <= 4; ++group)
        if (!match.captured(group).isEmpty())
            return match.captured(group).toInt();
    return -1;
}
} // namespace

namespace {
QString runMarker(const QString &runId)
{
    return QStringLiteral("/runs/") + runId + u'/';
}
} // namespace

QString runDirectoryOn(const QString &cluster, const QString &runId, const QList<JobRecord> &jobs,
                       const QString &workDirectory)
{
    QList<JobRecord> here; // a job saved without its cluster is of a run that has only one
    std::copy_if(jobs.cbegin(), jobs.cend(), std::back_inserter(here),
                 [&cluster](const JobRecord &job) { return job.cluster.isEmpty() || job.cluster == cluster; });
    return runDirectoryOf(runId, here, workDirectory);
}

QStringList clustersRanOn(const QString &runCluster, const QList<JobRecord> &jobs)
{
    QStringList ranOn{runCluster};
    for (const JobRecord &job : jobs)
        if (!job.cluster.isEmpty() && !ranOn.contains(job.cluster))
            ranOn.append(job.cluster);
    return ranOn;
}

QString runDirectoryOf(const QString &runId, const QList<JobRecord> &jobs, const QString &workDirectory)
{
    const QString marker = runMarker(runId);
    for (const JobRecord &job : jobs)
        for (const QString &path : {job.metricsPath, job.stdoutPath, job.stderrPath})
            if (const qsizetype at = path.indexOf(marker); at > 0)
                return path.left(at + marker.size() - 1);
    return workDirectory.isEmpty() ? QString() : workDirectory + QStringLiteral("/runs/") + runId;
}

QString pathInRun(const QString &runId, const QString &absolutePath)
{
    const QString marker = runMarker(runId);
    const qsizetype at = absolutePath.indexOf(marker);
    return at < 0 ? QString() : absolutePath.mid(at + marker.size());
}

RunPath cleanRunPath(const QString &relative)
{
    if (relative.startsWith(u'/') || relative.startsWith(u'~'))
        return {{}, core::Tr::tr("'%1' is not inside the run's directory: give a path relative to it").arg(relative)};
    QStringList parts;
    for (const QString &part : relative.split(u'/', Qt::SkipEmptyParts)) {
        if (part == u"..")
            return {{}, core::Tr::tr("'%1' leads outside the run's directory ('..' is refused)").arg(relative)};
        if (part != u".")
            parts.append(part);
    }
    return {parts.join(u'/'), {}};
}

QString listRunFilesCommand(const QString &runDirectory, const QString &relative)
{
    const QString shown = relative.isEmpty() ? QStringLiteral(".") : relative;
    return enterRun(runDirectory) +
           QStringLiteral(
               "t=$(realpath -e -- \"$r\"/%1 2>/dev/null) || { printf '%s\\n' %2 >&2; exit 4; }; "
               "case $t in \"$r\"|\"$r\"/*) ;; *) printf '%s\\n' %3 >&2; exit 5;; esac; cd \"$r\" || exit 3; "
               "if test \"$t\" = \"$r\"; then find . -mindepth 1 -printf '%y\\t%s\\t%T@\\t%l\\t%P\\0'; "
               "else find \"${t#\"$r\"/}\" -printf '%y\\t%s\\t%T@\\t%l\\t%p\\0'; fi")
               .arg(
                   shellQuote(shown), shellQuote(core::Tr::tr("no file '%1' in the run's directory").arg(shown)),
                   shellQuote(core::Tr::tr("'%1' leads outside the run's directory (a symlink?): refused").arg(shown)));
}

QList<RunFile> parseRunFiles(const QByteArray &commandOutput)
{
    QList<RunFile> files;
    for (const QByteArray &record : commandOutput.split('\0')) {
        const QList<QByteArray> fields = record.split('\t');
        if (fields.size() < 5 || fields.at(0).size() != 1)
            continue; // torn or empty: the command's output ends with a separator
        RunFile file;
        const char kind = fields.at(0).at(0);
        file.kind = (kind == 'f' || kind == 'd' || kind == 'l') ? kind : '?';
        file.bytes = file.kind == 'd' ? -1 : fields.at(1).toLongLong();
        file.time = fields.at(2).toDouble();
        file.linkTarget = QString::fromUtf8(fields.at(3));
        file.path = QString::fromUtf8(
            record.mid(fields.at(0).size() + fields.at(1).size() + fields.at(2).size() + fields.at(3).size() + 4));
        if (!file.path.isEmpty())
            files.append(file);
    }
    std::sort(files.begin(), files.end(), [](const RunFile &a, const RunFile &b) { return a.path < b.path; });
    return files;
}

void markRunFiles(QList<RunFile> &files, const QString &runDirectory, const QList<CheckpointEntry> &checkpoints,
                  const QList<JobRecord> &jobs)
{
    const QString root = runDirectory + u'/';
    for (RunFile &file : files) {
        file.attempt = attemptOfName(file.path.section(u'/', -1));
        for (const CheckpointEntry &entry : checkpoints) {
            const QString &path = entry.record.path;
            if (path == root + file.path || (!path.startsWith(root) && path.endsWith(u'/' + file.path))) {
                file.attempt = entry.record.attempt;
                file.latest = entry.latest;
                file.best = entry.best;
            }
        }
        if (file.attempt < 0)
            for (const JobRecord &job : jobs)
                if (job.stdoutPath == root + file.path || job.stderrPath == root + file.path)
                    file.attempt = job.attempt;
    }
}

QString sumRunFilesCommand(const QString &runDirectory, const QStringList &relativePaths)
{
    QStringList quoted;
    for (const QString &path : relativePaths)
        quoted.append(shellQuote(path));
    // sha256sum reads stdin: with a file name it would escape one holding a backslash or a newline.
    return enterRun(runDirectory) +
           QStringLiteral(
               "for p in %1; do t=$(realpath -e -- \"$r/$p\" 2>/dev/null); "
               "if test -z \"$t\"; then printf 'missing\\0'; continue; fi; "
               "case $t in \"$r\"/*) ;; *) printf 'outside\\0'; continue;; esac; "
               "if ! test -f \"$t\"; then printf 'not a file\\0'; continue; fi; "
               "s=$(stat -c %s -- \"$t\") && h=$(sha256sum < \"$t\") || { printf 'unreadable\\0'; continue; }; "
               "printf 'ok\\t%s\\t%s\\t%s\\0' \"$s\" \"${h%% *}\" \"$t\"; done")
               .arg(quoted.join(u' '));
}

QList<RemoteFileSum> parseRunFileSums(const QByteArray &commandOutput, const QStringList &relativePaths)
{
    const QList<QByteArray> records = commandOutput.split('\0');
    QList<RemoteFileSum> sums;
    for (qsizetype i = 0; i < relativePaths.size(); ++i) {
        RemoteFileSum sum;
        sum.path = relativePaths.at(i);
        const QByteArray record = i < records.size() ? records.at(i) : QByteArray();
        const QList<QByteArray> fields = record.split('\t');
        static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
        if (fields.size() >= 4 && fields.at(0) == "ok" && hex.match(QString::fromLatin1(fields.at(2))).hasMatch()) {
            sum.bytes = fields.at(1).toLongLong();
            sum.sha256 = QString::fromLatin1(fields.at(2));
            sum.realPath =
                QString::fromUtf8(record.mid(fields.at(0).size() + fields.at(1).size() + fields.at(2).size() + 3));
        } else if (record == "missing") {
            sum.error = core::Tr::tr("no file '%1' in the run's directory").arg(sum.path);
        } else if (record == "outside") {
            sum.error = core::Tr::tr("'%1' leads outside the run's directory (a symlink?): refused").arg(sum.path);
        } else if (record == "not a file") {
            sum.error = core::Tr::tr("'%1' is not a file (a directory? name the files in it)").arg(sum.path);
        } else if (record == "unreadable") {
            sum.error = core::Tr::tr("cannot read '%1' on the cluster").arg(sum.path);
        } else {
            sum.error = core::Tr::tr("no answer for '%1' from the cluster").arg(sum.path);
        }
        sums.append(sum);
    }
    return sums;
}

QString runDirectorySizeCommand(const QString &runDirectory)
{
    return QStringLiteral("if test -d %1; then du -sb -- %1 | cut -f1; else echo -; fi").arg(shellQuote(runDirectory));
}

QString removeRunDirectoryCommand(const QString &runDirectory, const QString &runId)
{
    return QStringLiteral("(r=$(realpath -e -- %1 2>/dev/null) || { echo gone; exit 0; }; "
                          "case $r in */runs/%2) ;; *) printf '%s %s\\n' %3 \"$r\" >&2; echo refused; exit 5;; esac; "
                          "rm -rf -- \"$r\" && echo removed)")
        .arg(shellQuote(runDirectory), shellQuote(runId),
             shellQuote(core::Tr::tr("refused: not a run's directory (<work directory>/runs/%1):").arg(runId)));
}

QString localSpaceProblem(const QList<RemoteFileSum> &files, const QList<qint64> &localBytes, qint64 available,
                          const QString &folder)
{
    constexpr qint64 spare = qint64(64) << 20; // the rest of this machine keeps working meanwhile
    qint64 needed = 0;
    for (qsizetype i = 0; i < files.size(); ++i)
        needed += std::max<qint64>(0, files.at(i).bytes - localBytes.value(i, 0));
    if (available < 0 || needed + spare <= available)
        return {};
    const QLocale c = QLocale::c();
    return core::Tr::tr("the files need %1 more on this machine, and %2 has %3 free: make room or pull to another "
                        "folder")
        .arg(c.formattedDataSize(needed), folder, c.formattedDataSize(std::max<qint64>(0, available)));
}

QString sshWithReach(const QString &reach)
{
    return QStringLiteral("ssh -n -o BatchMode=yes -o ConnectTimeout=15 ") + reach;
}

QString removeCopyLeftoversCommand(const QString &target)
{
    const QString folder = target.section(u'/', 0, -2);
    QString name = target.section(u'/', -1);
    for (const QChar special : {u'\\', u'*', u'?', u'['}) // a name's own pattern characters, taken as they are
        name.replace(special, QStringLiteral("\\") + special);
    return QStringLiteral(
               "mkdir -p -- %1 && find %1 -maxdepth 1 -type f \\( -name %2 -o -name %3 \\) -exec rm -f -- {} +")
        .arg(shellQuote(folder), shellQuote(name + QStringLiteral(".part-*")),
             shellQuote(name + QStringLiteral(".torchdeck-??????")));
}

QString straightCopyCommand(const QString &reach, const QList<StraightFile> &files)
{
    QStringList lines{QStringLiteral("umask 077")};
    for (const StraightFile &file : files) {
        // Its own partial file: two moves may copy one code object at once.
        const QString there = shellQuote(QStringLiteral("cat -- ") + shellQuote(file.from));
        lines.append(QStringLiteral("p=; mkdir -p -- %1 && p=$(mktemp -- %2) && "
                                    "%3 %4 > \"$p\" && "
                                    "[ \"$(sha256sum < \"$p\" | cut -c1-64)\" = %5 ] && chmod %6 \"$p\" && "
                                    "mv -f -- \"$p\" %7 || { rm -f -- \"$p\"; echo %8 >&2; exit 1; }")
                         .arg(shellQuote(file.to.section(u'/', 0, -2)),
                              shellQuote(file.to + QStringLiteral(".torchdeck-XXXXXX")), sshWithReach(reach), there,
                              shellQuote(file.sha256), QString::number(file.mode, 8), shellQuote(file.to),
                              shellQuote(file.label + QStringLiteral(" was not copied whole"))));
    }
    return lines.join(u'\n');
}

} // namespace torchdeck
