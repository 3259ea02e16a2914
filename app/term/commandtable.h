#pragma once

#include <QList>
#include <QString>
#include <QStringList>

class QTextStream;

namespace torchdeck::term {

// The one table of the terminal's commands and options. --help, `torchdeck help COMMAND`, the man page and
// the bash, zsh and fish completions are all generated from it, so they cannot drift apart.

// What a value or an operand completes to.
enum class Completion {
    None,      // free text or a number: nothing to offer
    Cluster,   // a host of the ssh config
    Run,       // a run id or name from the run store
    File,      // a path
    Directory, // a folder
    Choices,   // one of `choices`
};

struct OptionSpec {
    QString name;  // --follow
    QString alias; // -f, or empty
    QString value; // the value's placeholder (N, DIR); empty for a flag
    QString help;
    Completion completion = Completion::None;
    QStringList choices;
    bool repeatable = false;
};

struct OperandSpec {
    QString name; // CLUSTER, RUN
    Completion completion = Completion::None;
    QStringList choices;
    bool optional = false;
    bool repeatable = false; // RUN...
};

struct CommandSpec {
    QString name;
    QString group; // the heading it is listed under in --help and the man page
    QList<OperandSpec> operands;
    QString summary;
    QList<OptionSpec> options;
    bool takesJobOptions = false; // the job and trainer options (script, submit)
    bool hidden = false;          // the completions' helper: in no help text
    // What runs it: (arguments after the command, stdout, stderr) -> exit code. Null only for `help`, which
    // the front answers from this table itself.
    int (*run)(const QStringList &, QTextStream &, QTextStream &) = nullptr;
};

const QList<CommandSpec> &commandSpecs();
const CommandSpec *findCommand(QStringView name);

const QList<OptionSpec> &globalOptions();  // -h/--help, --version
const QList<OptionSpec> &jobOptionSpecs(); // the job's own options (script, submit; a --job FILE holds them)
const QList<OptionSpec> &trainerOptionSpecs();

// Every option a command accepts, its own and, where it takes them, the job and trainer options.
QList<OptionSpec> optionsOf(const CommandSpec &command);

QString operandSynopsis(const CommandSpec &command); // "CLUSTER [on|off]", "RUN..."
QString optionSynopsis(const OptionSpec &option);    // "--work-dir DIR", "-f, --follow"

// The environment variables and files torchdeck reads, for --help and the man page.
struct EnvironmentSpec {
    QString name;
    QString help;
};
const QList<EnvironmentSpec> &environmentSpecs();

} // namespace torchdeck::term
