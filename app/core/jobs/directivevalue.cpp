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

// The directives torchdeck writes itself that a run cannot do without (its name finds a submission whose reply was
// lost, its logs are read, it runs in its directory, it is one job of its own): an extra directive may not set them.
// Others it writes (time, shape, partition) a site's directive may override, as runs stored before this check did.
QString managedDirectiveProblem(const QString &line, SchedulerKind scheduler)
{
    QString text = line.trimmed();
    for (const QString &prefix : {QStringLiteral("#SBATCH"), QStringLiteral("#PBS")})
        if (text.startsWith(prefix))
            text = text.mid(prefix.size()).trimmed();
    const QString token = text.section(u' ', 0, 0).section(u'\t', 0, 0);
    const QString option = token.startsWith(QStringLiteral("--"))        ? token.mid(2).section(u'=', 0, 0)
                           : token.startsWith(u'-') && token.size() >= 2 ? token.mid(1, 1)
                                                                         : QString();
    struct Managed {
        QStringList options;
        QString what;
    };
    const QList<Managed> managed =
        scheduler == SchedulerKind::Slurm
            ? QList<Managed>{{{QStringLiteral("job-name"), QStringLiteral("J")},
                              core::Tr::tr("the job's name (--name)")},
                             {{QStringLiteral("output"), QStringLiteral("o"), QStringLiteral("error"),
                               QStringLiteral("e"), QStringLiteral("open-mode")},
                              core::Tr::tr("the job's log, which torchdeck reads")},
                             {{QStringLiteral("array"), QStringLiteral("a"), QStringLiteral("dependency"),
                               QStringLiteral("d")},
                              core::Tr::tr("job arrays and dependencies (sweep, --chain)")},
                             {{QStringLiteral("chdir"), QStringLiteral("D")}, core::Tr::tr("the run's directory")}}
            : QList<Managed>{{{QStringLiteral("N")}, core::Tr::tr("the job's name (--name)")},
                             {{QStringLiteral("o"), QStringLiteral("e"), QStringLiteral("j")},
                              core::Tr::tr("the job's log, which torchdeck reads")},
                             {{QStringLiteral("J")}, core::Tr::tr("job arrays (sweep)")}};
    // sbatch, as getopt_long, takes an unambiguous prefix of a long option for it (--out= is --output=).
    const bool longPrefix = token.startsWith(QStringLiteral("--")) && option.size() >= 2;
    for (const Managed &m : managed)
        for (const QString &name : m.options)
            if (!option.isEmpty() && (name == option || (longPrefix && name.size() > 1 && name.startsWith(option))))
                return core::Tr::tr("'%1' sets %2: torchdeck writes that directive itself.").arg(token, m.what);
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
    if (const QString managed = managedDirectiveProblem(line, scheduler); !managed.isEmpty())
        return managed;
    return scheduler == SchedulerKind::Slurm ? slurmKeywordProblem(line) : QString();
}

} // namespace torchdeck
