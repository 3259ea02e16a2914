#include "term/completioncommand.h"

#include "core/sshconfigparser.h"
#include "core/store/runstore.h"
#include "term/commandhelp.h"
#include "term/commandtable.h"
#include "term/completionscripts.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QTextStream>

namespace torchdeck::term {

int runCompletionCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const QString shell = args.size() == 1 ? args.constFirst() : QString();
    if (shell == u"bash")
        out << bashCompletion();
    else if (shell == u"zsh")
        out << zshCompletion();
    else if (shell == u"fish")
        out << fishCompletion();
    else {
        err << Tr::tr("torchdeck completion: which shell? bash, zsh or fish (usage: torchdeck completion SHELL)\n");
        return UsageError;
    }
    return Ok;
}

int runManPageCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    if (!args.isEmpty()) {
        err << Tr::tr("torchdeck manpage: takes no arguments\n");
        return UsageError;
    }
    out << manPage(QCoreApplication::applicationVersion());
    return Ok;
}

int runCompleteValuesCommand(const QStringList &args, QTextStream &out, QTextStream &)
{
    const QString what = args.value(0);
    if (what == u"clusters") {
        for (const QString &alias : readUserSshConfig().hostAliases())
            out << alias << '\n';
    } else if (what == u"commands") {
        for (const CommandSpec &command : commandSpecs()) {
            if (!command.hidden)
                out << command.name << '\n';
        }
    } else if (what == u"runs") {
        if (!QFileInfo::exists(RunStore::defaultPath()))
            return Ok; // no store yet: nothing to offer, and none created by a Tab
        RunStore store;
        if (!store.openReadOnly().ok())
            return Ok;
        const auto runs = store.runs();
        for (const RunRecord &run : runs.value) {
            out << shortRunId(run.id) << '\n';
            if (!run.name.isEmpty() && !run.name.contains(u'\n'))
                out << run.name << '\n';
        }
    } else if (what == u"options" || what == u"values") {
        // options COMMAND: "--name<TAB>PLACEHOLDER" per option; values COMMAND OPTION: the option's choices.
        const CommandSpec *command = findCommand(args.value(1));
        if (!command)
            return UsageError;
        for (const OptionSpec &option : optionsOf(*command)) {
            if (what == u"options")
                out << option.name << '\t' << option.value << '\n';
            else if (option.name == args.value(2))
                out << option.choices.join(u'\n') << (option.choices.isEmpty() ? "" : "\n");
        }
    } else {
        return UsageError;
    }
    return Ok;
}

} // namespace torchdeck::term
