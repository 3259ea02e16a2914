#include "term/terminalfront.h"

#include "term/commandhelp.h"
#include "term/commandtable.h"
#include "term/termtr.h"

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
    if (const CommandSpec *spec = findCommand(command); spec && spec->run)
        return spec->run(rest, out, err);
    err << Tr::tr("torchdeck: unknown command '%1' (see torchdeck --help)\n").arg(command);
    return UsageError;
}

} // namespace torchdeck::term
