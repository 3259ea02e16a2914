#include "term/commandhelp.h"

#include "term/commandtable.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {

constexpr int lineWidth = 110;
constexpr int helpColumn = 26;
constexpr QChar unbreakable(0xA0); // joins an option to its value in the overview, so a line never splits them

// Words of `text` filled into lines of lineWidth, the first starting at column `used`, the others at `indent`.
QString wrapped(const QString &text, int used, int indent)
{
    QString result;
    int column = used;
    bool lineEmpty = true;
    for (const QString &word : text.split(u' ', Qt::SkipEmptyParts)) {
        if (!lineEmpty && column + 1 + word.size() > lineWidth) {
            result += u'\n' + QString(indent, u' ');
            column = indent;
            lineEmpty = true;
        }
        if (!lineEmpty) {
            result += u' ';
            ++column;
        }
        result += word;
        column += int(word.size());
        lineEmpty = false;
    }
    return result.replace(unbreakable, u' ');
}

// "  left" padded to the help column (or two spaces past a longer left side), then the wrapped text.
QString columns(const QString &left, const QString &text)
{
    QString line = QStringLiteral("  ") + left;
    line += line.size() < helpColumn ? QString(helpColumn - line.size(), u' ') : QStringLiteral("  ");
    return line + wrapped(text, int(line.size()), helpColumn) + u'\n';
}

QString valueWords(const OptionSpec &option)
{
    return option.completion == Completion::Choices ? option.choices.join(u'|') : option.value;
}

// "[--scheduler slurm|pbs|local]", "[--module M]...": an option as the overview lists it.
QString bracketed(const OptionSpec &option)
{
    QString text = u'[' + option.name;
    if (!option.value.isEmpty())
        text += unbreakable + valueWords(option);
    text += u']';
    return option.repeatable ? text + QStringLiteral("...") : text;
}

QString optionHelp(const OptionSpec &option)
{
    QString help = option.help;
    if (option.completion == Completion::Choices)
        help += QStringLiteral(": ") + option.choices.join(QStringLiteral(", "));
    if (option.repeatable)
        help += Tr::tr(" (may be repeated)");
    return help;
}

QString optionList(const QList<OptionSpec> &options)
{
    QString text;
    for (const OptionSpec &option : options)
        text += columns(optionSynopsis(option), optionHelp(option));
    return text;
}

QString jobOptionsHeading()
{
    return Tr::tr("Job options (script, submit; a --job FILE holds the same as JSON, options override it):");
}

QString trainerOptionsHeading()
{
    return Tr::tr("Trainer options (passed to torchdeck-train, see docs/trainer.md):");
}

QString tokens(const QList<OptionSpec> &options)
{
    QStringList words;
    for (const OptionSpec &option : options)
        words.append(bracketed(option));
    return words.join(u' ');
}

QString exitCodesText()
{
    return Tr::tr("0 success, 1 failure (the message says what to do), 2 bad command line.");
}

// roff: backslashes and hyphens escaped, a line's leading dot or quote defused.
QString roff(const QString &text)
{
    QString escaped = text;
    escaped.replace(u'\\', QStringLiteral("\\e")).replace(u'-', QStringLiteral("\\-"));
    if (escaped.startsWith(u'.') || escaped.startsWith(u'\''))
        escaped.prepend(QStringLiteral("\\&"));
    return escaped;
}

QString manOptions(const QList<OptionSpec> &options)
{
    QString text;
    for (const OptionSpec &option : options) {
        QString head = QStringLiteral("\\fB") +
                       roff(option.alias.isEmpty() ? option.name : option.alias + QStringLiteral(", ") + option.name) +
                       QStringLiteral("\\fR");
        if (!option.value.isEmpty())
            head += QStringLiteral(" \\fI") + roff(option.value) + QStringLiteral("\\fR");
        text += QStringLiteral(".TP\n") + head + u'\n' + roff(optionHelp(option)) + u'\n';
    }
    return text;
}

} // namespace

QString usageText()
{
    QString text = Tr::tr("Usage: torchdeck [COMMAND [OPTIONS]]\n\n"
                          "Without a command, torchdeck opens the desktop dashboard. "
                          "`torchdeck help COMMAND` says more about one command.\n");
    QString group;
    for (const CommandSpec &command : commandSpecs()) {
        if (command.hidden)
            continue;
        if (command.group != group) {
            group = command.group;
            text += u'\n' + group + u":\n";
        }
        QString about = command.summary;
        if (!command.options.isEmpty())
            about += u' ' + tokens(command.options);
        if (command.takesJobOptions)
            about += Tr::tr(" [job options] [trainer options]");
        text += columns(QString(command.name + u' ' + operandSynopsis(command)).trimmed(), about);
    }
    text += u'\n' + jobOptionsHeading() + QStringLiteral("\n  ") + wrapped(tokens(jobOptionSpecs()), 2, 2) + u'\n';
    text += trainerOptionsHeading() + QStringLiteral("\n  ") + wrapped(tokens(trainerOptionSpecs()), 2, 2) + u'\n';
    text += u'\n' + Tr::tr("Options:") + u'\n' + optionList(globalOptions());
    text += u'\n' + Tr::tr("Environment:") + u'\n';
    for (const EnvironmentSpec &variable : environmentSpecs())
        text += columns(variable.name, variable.help);
    text += u'\n' + Tr::tr("Exit codes: %1").arg(exitCodesText()) + u'\n';
    return text;
}

QString commandHelpText(const CommandSpec &command)
{
    QString summary = command.summary;
    summary[0] = summary.at(0).toUpper();
    QString text =
        Tr::tr("Usage: torchdeck %1 [OPTIONS]").arg(QString(command.name + u' ' + operandSynopsis(command)).trimmed()) +
        QStringLiteral("\n\n") + wrapped(summary + u'.', 0, 0) + u'\n';
    if (!command.options.isEmpty())
        text += u'\n' + Tr::tr("Options:") + u'\n' + optionList(command.options);
    if (command.takesJobOptions) {
        text += u'\n' + jobOptionsHeading() + u'\n' + optionList(jobOptionSpecs());
        text += u'\n' + trainerOptionsHeading() + u'\n' + optionList(trainerOptionSpecs());
    }
    return text;
}

QString manPage(const QString &version)
{
    QString page = QStringLiteral(".\\\" Generated by `torchdeck manpage` from the command table; do not edit.\n"
                                  ".TH TORCHDECK 1 \"\" \"torchdeck %1\" \"User Commands\"\n")
                       .arg(version);
    page += QStringLiteral(".SH NAME\ntorchdeck \\- ") +
            roff(Tr::tr("desktop and terminal dashboard for deep-learning jobs on HPC clusters")) + u'\n';
    page += QStringLiteral(".SH SYNOPSIS\n.B torchdeck\n.br\n.B torchdeck\n.I COMMAND\n.RI [ OPTIONS ]\n");
    page += QStringLiteral(".SH DESCRIPTION\n") +
            roff(Tr::tr("Without a command, torchdeck opens the desktop dashboard: clusters from your ssh config, a "
                        "job form, runs with their live loss curves, logs and checkpoints. With a command it works in "
                        "the terminal, over SSH, on the same runs.")) +
            u'\n';
    page += QStringLiteral(".SH COMMANDS\n");
    for (const CommandSpec &command : commandSpecs()) {
        if (command.hidden)
            continue;
        page += QStringLiteral(".TP\n\\fB") + roff(command.name) + QStringLiteral("\\fR");
        if (!command.operands.isEmpty())
            page += QStringLiteral(" \\fI") + roff(operandSynopsis(command)) + QStringLiteral("\\fR");
        page += u'\n' + roff(command.summary) + u'\n';
        if (command.takesJobOptions)
            page += roff(Tr::tr("It takes the job and trainer options below.")) + u'\n';
        if (!command.options.isEmpty())
            page += QStringLiteral(".RS\n") + manOptions(command.options) + QStringLiteral(".RE\n");
    }
    page += QStringLiteral(".SH JOB OPTIONS\n") + roff(jobOptionsHeading()) + u'\n' + manOptions(jobOptionSpecs());
    page += QStringLiteral(".SH TRAINER OPTIONS\n") + roff(trainerOptionsHeading()) + u'\n' +
            manOptions(trainerOptionSpecs());
    page += QStringLiteral(".SH OPTIONS\n") + manOptions(globalOptions());
    page += QStringLiteral(".SH ENVIRONMENT\n");
    for (const EnvironmentSpec &variable : environmentSpecs())
        page += QStringLiteral(".TP\n.B ") + roff(variable.name) + u'\n' + roff(variable.help) + u'\n';
    page += QStringLiteral(".SH EXIT STATUS\n") + roff(exitCodesText()) + u'\n';
    return page;
}

bool asksForHelp(const CommandSpec &command, const QStringList &args)
{
    const QList<OptionSpec> options = optionsOf(command);
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"-h" || arg == u"--help")
            return true;
        for (const OptionSpec &option : options) {
            if (!option.value.isEmpty() && (arg == option.name || arg == option.alias)) {
                ++i; // its value, even one that reads --help
                break;
            }
        }
    }
    return false;
}

} // namespace torchdeck::term
