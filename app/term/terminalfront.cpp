#include "term/terminalfront.h"

#include "term/checkcommand.h"
#include "term/clusterscommand.h"
#include "term/codecommand.h"
#include "term/commandhelp.h"
#include "term/commandtable.h"
#include "term/completioncommand.h"
#include "term/logscommand.h"
#include "term/profilecommand.h"
#include "term/runactions.h"
#include "term/runscommand.h"
#include "term/submitcommand.h"
#include "term/termtr.h"
#include "term/watchcommand.h"

#include <QCoreApplication>
#include <QTextStream>

namespace torchdeck::term {

bool isTerminalInvocation(const QStringList &args)
{
    return !args.isEmpty();
}

int runTerminal(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString command = args.value(0);
    const QStringList rest = args.mid(1);
    if (command == u"-h" || command == u"--help") {
        out << usageText();
        return Ok;
    }
    if (const CommandSpec *spec = findCommand(command); spec && !spec->hidden && asksForHelp(*spec, rest)) {
        out << commandHelpText(*spec);
        return Ok;
    }
    if (command == u"help") {
        const CommandSpec *topic = rest.isEmpty() ? nullptr : findCommand(rest.constFirst());
        if (!rest.isEmpty() && (!topic || topic->hidden)) {
            err << Tr::tr("torchdeck help: no command '%1' (see torchdeck --help)\n").arg(rest.constFirst());
            return UsageError;
        }
        out << (topic ? commandHelpText(*topic) : usageText());
        return Ok;
    }
    if (command == u"--version") {
        out << "torchdeck " << QCoreApplication::applicationVersion() << '\n';
        return Ok;
    }
    using Command = int (*)(const QStringList &, QTextStream &, QTextStream &);
    static const std::pair<const char16_t *, Command> commands[] = {
        {u"clusters", runClustersCommand},
        {u"check", runCheckCommand},
        {u"profile", runProfileCommand},
        {u"script", runScriptCommand},
        {u"submit", runSubmitCommand},
        {u"runs", runRunsCommand},
        {u"status", runStatusCommand},
        {u"logs", runLogsCommand},
        {u"metrics", runMetricsCommand},
        {u"cancel", runCancelCommand},
        {u"auto-restart", runAutoRestartCommand},
        {u"checkpoints", runCheckpointsCommand},
        {u"resume", runResumeCommand},
        {u"watch", runWatchCommand},
        {u"code", runCodeCommand},
        {u"completion", runCompletionCommand},
        {u"manpage", runManPageCommand},
        {u"__complete", runCompleteValuesCommand},
    };
    for (const auto &[name, run] : commands) {
        if (command == QStringView(name))
            return run(rest, out, err);
    }
    err << Tr::tr("torchdeck: unknown command '%1' (see torchdeck --help)\n").arg(command);
    return UsageError;
}

} // namespace torchdeck::term
