#include "core/jobs/directivevalue.h"

#include "core/coretr.h"

namespace torchdeck {

namespace {

bool isDirectiveSafe(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') ||
           QStringView(u"._,:=@%+/-").contains(c);
}

QString describe(QChar c)
{
    if (c == u' ')
        return core::Tr::tr("a space");
    if (c == u'\n')
        return core::Tr::tr("a line break");
    if (c.unicode() < 0x20 || c.unicode() == 0x7f)
        return core::Tr::tr("a control character");
    return u'\'' + QString(c) + u'\'';
}

// sbatch (src/sbatch/opt.c) overwrites "hetjob"/"packjob" with spaces wherever they appear on the line.
QString slurmKeywordProblem(const QString &text)
{
    for (const QString &word : {QStringLiteral("hetjob"), QStringLiteral("packjob")}) {
        if (text.contains(word, Qt::CaseInsensitive))
            return core::Tr::tr("contains '%1', which sbatch treats as a heterogeneous-job separator.").arg(word);
    }
    return {};
}

} // namespace

QString directiveValueProblem(const QString &value, SchedulerKind scheduler)
{
    for (const QChar c : value) {
        if (!isDirectiveSafe(c))
            return core::Tr::tr("contains %1: scheduler directive lines cannot quote it. Use only letters, "
                                "digits and . _ , : = @ % + / -.")
                .arg(describe(c));
    }
    return scheduler == SchedulerKind::Slurm ? slurmKeywordProblem(value) : QString();
}

QString logPatternProblem(const QString &path)
{
    for (qsizetype i = 0; i < path.size(); ++i) {
        if (path[i] != u'%')
            continue;
        const QChar next = i + 1 < path.size() ? path[i + 1] : QChar();
        if (next != u'j' && next != u'x' && next != u'%')
            return core::Tr::tr("Only %j (job id), %x (job name) and %% may follow '%' in a log path.");
        ++i;
    }
    return {};
}

QString rawDirectiveProblem(const QString &line, SchedulerKind scheduler)
{
    if (scheduler == SchedulerKind::Local)
        return {}; // a local script has no directives; the lines are not written
    if (line.trimmed().isEmpty())
        return core::Tr::tr("An extra directive cannot be empty.");
    for (const QChar c : line) {
        if ((c.unicode() < 0x20 && c != u'\t') || c.unicode() == 0x7f)
            return core::Tr::tr("An extra directive is one line without control characters (it contains %1).")
                .arg(describe(c));
    }
    return scheduler == SchedulerKind::Slurm ? slurmKeywordProblem(line) : QString();
}

} // namespace torchdeck
