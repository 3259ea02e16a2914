#include "term/annotatecommands.h"

#include "core/agent/agentops.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
constexpr int annotateTimeoutMs = 30000;

std::optional<agent::AnnotateRun::Reply> annotate(TermContext &context, const RunRecord &run,
                                                  const std::optional<QString> &name,
                                                  const std::optional<QString> &note, const QStringList &add = {},
                                                  const QStringList &remove = {})
{
    const OperationOutcome done =
        context.wait(context.agent().annotateRun(run.cluster, run.id, name, note, add, remove), annotateTimeoutMs,
                     Tr::tr("run %1").arg(shortRunId(run.id)));
    if (!done.ok)
        return std::nullopt;
    return done.reply<agent::AnnotateRun>().value_or(agent::AnnotateRun::Reply{});
}
} // namespace

int runNoteCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("note"), out, err);
    if (args.isEmpty() || args.size() > 2 || args.constFirst().startsWith(u'-')) {
        context.error(Tr::tr("usage: torchdeck note RUN [TEXT]   (TEXT \"\" clears it; none prints it)"));
        return UsageError;
    }
    const auto run = context.openRun(args.constFirst());
    if (!run)
        return Failure;
    if (args.size() == 1) {
        if (!run->note.isEmpty())
            out << run->note << '\n' << Qt::flush;
        return Ok;
    }
    if (!annotate(context, *run, std::nullopt, args.at(1)))
        return Failure;
    out << (args.at(1).isEmpty() ? Tr::tr("run %1: note cleared\n") : Tr::tr("run %1: note kept\n"))
               .arg(shortRunId(run->id))
        << Qt::flush;
    return Ok;
}

int runTagCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("tag"), out, err);
    bool remove = false;
    QStringList operands;
    for (const QString &arg : args) {
        if (arg == u"--remove")
            remove = true;
        else if (!arg.startsWith(u'-'))
            operands.append(arg);
        else {
            context.error(
                Tr::tr("unexpected argument '%1' (usage: torchdeck tag RUN|SWEEP NAME... [--remove])").arg(arg));
            return UsageError;
        }
    }
    if (operands.size() < 2) {
        context.error(Tr::tr("usage: torchdeck tag RUN|SWEEP NAME... [--remove]"));
        return UsageError;
    }
    const QStringList tags = operands.mid(1);
    for (const QString &tag : tags)
        if (const QString error = tagError(tag); !error.isEmpty()) {
            context.error(error);
            return UsageError;
        }
    if (!context.open())
        return Failure;
    const QList<RunRecord> runs = context.findRuns(operands.constFirst(), true); // a sweep: all its runs
    if (runs.isEmpty())
        return Failure;
    int result = Ok;
    for (const RunRecord &run : runs) {
        const auto done = remove ? annotate(context, run, std::nullopt, std::nullopt, {}, tags)
                                 : annotate(context, run, std::nullopt, std::nullopt, tags, {});
        if (!done) {
            result = Failure;
            continue;
        }
        out << Tr::tr("run %1 (%2): %3\n")
                   .arg(shortRunId(run.id), run.name,
                        done->tags.isEmpty() ? Tr::tr("no tags") : done->tags.join(QStringLiteral(", ")));
    }
    out << Qt::flush;
    return result;
}

int runRenameCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("rename"), out, err);
    if (args.size() != 2 || args.constFirst().startsWith(u'-')) {
        context.error(Tr::tr("usage: torchdeck rename RUN NAME"));
        return UsageError;
    }
    const auto run = context.openRun(args.constFirst());
    if (!run)
        return Failure;
    const auto done = annotate(context, *run, args.at(1), std::nullopt);
    if (!done)
        return Failure;
    out << Tr::tr("run %1 is now called %2\n").arg(shortRunId(run->id), done->name) << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
