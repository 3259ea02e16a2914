#include "term/joboptions.h"

#include "core/jobs/runlayout.h"
#include "core/jobs/walltime.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace torchdeck::term {

namespace {

// Options that set one key of the job's JSON, and how their value reads.
enum class ValueKind { Text, Integer, WallTime };
struct SpecOption {
    const char16_t *flag;
    const char16_t *key;
    ValueKind kind;
};
const SpecOption specOptions[] = {
    {u"--name", u"name", ValueKind::Text},
    {u"--nodes", u"nodes", ValueKind::Integer},
    {u"--tasks-per-node", u"tasksPerNode", ValueKind::Integer},
    {u"--gpus-per-node", u"gpusPerNode", ValueKind::Integer},
    {u"--cpus-per-task", u"cpusPerTask", ValueKind::Integer},
    {u"--mem", u"memory", ValueKind::Text},
    {u"--time", u"wallTimeSeconds", ValueKind::WallTime},
    {u"--partition", u"partition", ValueKind::Text},
    {u"--queue", u"partition", ValueKind::Text},
    {u"--account", u"account", ValueKind::Text},
    {u"--workdir", u"workingDirectory", ValueKind::Text},
    {u"--launch", u"launch", ValueKind::Text},
    {u"--per-node-launcher", u"perNodeLauncher", ValueKind::Text},
    {u"--signal", u"checkpointSignal", ValueKind::Text},
    {u"--signal-lead", u"signalLeadSeconds", ValueKind::Integer},
    {u"--max-restarts", u"maxRestarts", ValueKind::Integer},
    {u"--master-port", u"masterPort", ValueKind::Integer},
};
// Options appended to a list key.
const std::pair<const char16_t *, const char16_t *> listOptions[] = {
    {u"--module", u"modules"},
    {u"--launcher-option", u"launcherOptions"},
    {u"--log-pattern", u"logPatterns"},
};
// The trainer's flags that take a value (docs/trainer.md); they go to the trainer's command line.
const char16_t *const trainerOptions[] = {
    u"--model",     u"--data",           u"--epochs",           u"--batch-size", u"--lr",
    u"--optimizer", u"--seed",           u"--checkpoint-every", u"--keep",       u"--threads",
    u"--limit",     u"--log-every",      u"--backend",          u"--amp",        u"--bucket-mb",
    u"--device",    u"--nproc-per-node", u"--weight-decay",     u"--momentum",
};

bool readJobFile(const QString &path, QJsonObject *object, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read the job file %1: %2").arg(path, file.errorString());
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!document.isObject()) {
        const QString why =
            parseError.error == QJsonParseError::NoError ? QStringLiteral("a list or value") : parseError.errorString();
        *error = QStringLiteral("the job file %1 is not a JSON object: %2").arg(path, why);
        return false;
    }
    *object = document.object();
    return true;
}

} // namespace

JobOptions parseJobOptions(const QStringList &args, const QSet<QString> &commandFlags,
                           const QSet<QString> &commandOptions)
{
    JobOptions result;
    QJsonObject json;
    QJsonObject overrides;
    QStringList trainerArgs;
    bool trainerArgsGiven = false;
    const auto fail = [&](const QString &message) {
        result.error = message;
        return result;
    };
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        const bool hasValue = i + 1 < args.size();
        const QString value = hasValue ? args.at(i + 1) : QString();
        if (commandFlags.contains(arg)) {
            result.flags.insert(arg);
            continue;
        }
        if (commandOptions.contains(arg)) {
            if (!hasValue)
                return fail(QStringLiteral("%1 needs a value").arg(arg));
            result.values.insert(arg, value);
            ++i;
            continue;
        }
        if (!arg.startsWith(u'-')) {
            if (!result.cluster.isEmpty())
                return fail(
                    QStringLiteral("unexpected argument '%1' (one cluster only; options start with --)").arg(arg));
            result.cluster = arg;
            continue;
        }
        if (arg == u"--requeue" || arg == u"--oversubscribe" || arg == u"--no-checkpoint-signal" ||
            arg == u"--mpi-allow-run-as-root") {
            const QString key = arg == u"--requeue"                 ? QStringLiteral("requeue")
                                : arg == u"--oversubscribe"         ? QStringLiteral("oversubscribe")
                                : arg == u"--mpi-allow-run-as-root" ? QStringLiteral("mpiAllowRunAsRoot")
                                                                    : QStringLiteral("checkpointSignalEnabled");
            overrides[key] = arg != u"--no-checkpoint-signal";
            continue;
        }
        if (arg == u"--channels-last") {
            trainerArgs.append(arg);
            trainerArgsGiven = true;
            continue;
        }
        if (!hasValue)
            return fail(QStringLiteral("unknown option '%1', or it needs a value (see torchdeck --help)").arg(arg));
        ++i;
        if (arg == u"--job") {
            if (!readJobFile(value, &json, &result.error))
                return result;
            continue;
        }
        if (arg == u"--command") {
            overrides[u"commandKind"] = QStringLiteral("custom");
            overrides[u"customCommand"] = value;
            continue;
        }
        if (arg == u"--code") {
            const QFileInfo folder(value);
            if (!folder.isDir())
                return fail(QStringLiteral("--code wants a folder of your project, and %1 is none").arg(value));
            overrides[u"code"] = folder.absoluteFilePath();
            continue;
        }
        if (arg == u"--env") {
            const qsizetype equals = value.indexOf(u'=');
            if (equals <= 0)
                return fail(QStringLiteral("--env wants NAME=VALUE, got '%1'").arg(value));
            QJsonArray env = overrides.value(u"environment").toArray();
            env.append(QJsonObject{{QStringLiteral("name"), value.left(equals)},
                                   {QStringLiteral("value"), value.mid(equals + 1)}});
            overrides[u"environment"] = env;
            continue;
        }
        if (arg == u"--container") {
            const qsizetype colon = value.indexOf(u':');
            if (colon <= 0)
                return fail(
                    QStringLiteral("--container wants RUNTIME:IMAGE (apptainer, singularity or shifter), got '%1'")
                        .arg(value));
            overrides[u"container"] = QJsonObject{{QStringLiteral("runtime"), value.left(colon)},
                                                  {QStringLiteral("image"), value.mid(colon + 1)}};
            continue;
        }
        if (arg == u"--trainer-arg") {
            trainerArgs.append(value);
            trainerArgsGiven = true;
            continue;
        }
        bool known = false;
        for (const SpecOption &option : specOptions) {
            if (arg != QStringView(option.flag))
                continue;
            known = true;
            const QString key = QString::fromUtf16(option.key);
            if (option.kind == ValueKind::Text) {
                overrides[key] = value;
            } else if (option.kind == ValueKind::Integer) {
                bool ok = false;
                const int number = value.toInt(&ok);
                if (!ok)
                    return fail(QStringLiteral("%1 wants a whole number, got '%2'").arg(arg, value));
                overrides[key] = number;
            } else {
                const auto seconds = parseWallTime(value);
                if (!seconds)
                    return fail(QStringLiteral("--time wants a wall time like 30, 01:30:00 or 1-12:00:00, got '%1'")
                                    .arg(value));
                overrides[key] = *seconds;
            }
        }
        for (const auto &[flag, key] : listOptions) {
            if (arg == QStringView(flag)) {
                known = true;
                QJsonArray list = overrides.value(QStringView(key)).toArray();
                list.append(value);
                overrides[QString::fromUtf16(key)] = list;
            }
        }
        for (const char16_t *flag : trainerOptions) {
            if (arg == QStringView(flag)) {
                known = true;
                trainerArgs = withTrainerOption(trainerArgs, arg, value);
                trainerArgsGiven = true;
            }
        }
        if (!known)
            return fail(QStringLiteral("unknown option '%1' (see torchdeck --help)").arg(arg));
    }
    for (auto it = overrides.begin(); it != overrides.end(); ++it)
        json[it.key()] = it.value();
    if (trainerArgsGiven) {
        // Command-line trainer options override the job file's, flag by flag.
        QStringList merged;
        for (const QJsonValue &word : json.value(u"trainerArgs").toArray())
            merged.append(word.toString());
        for (qsizetype i = 0; i < trainerArgs.size(); ++i) {
            const QString &word = trainerArgs.at(i);
            const bool valued = word.startsWith(QStringLiteral("--")) && i + 1 < trainerArgs.size() &&
                                !trainerArgs.at(i + 1).startsWith(QStringLiteral("--"));
            if (valued)
                merged = withTrainerOption(merged, word, trainerArgs.at(++i));
            else
                merged.append(word);
        }
        json[u"trainerArgs"] = QJsonArray::fromStringList(merged);
    }
    // No name (or a template's empty one): named after the model, from the job file or the command line.
    if (const QJsonValue name = json.value(u"name"); name.isUndefined() || name == QJsonValue(QString())) {
        QStringList finalArgs;
        for (const QJsonValue &word : json.value(u"trainerArgs").toArray())
            finalArgs.append(word.toString());
        const QString model = trainerOption(finalArgs, QStringLiteral("--model"));
        json[u"name"] = model.isEmpty() ? QStringLiteral("torchdeck-job") : QStringLiteral("train-") + model;
    }
    const JobSpec::FromJson parsed = JobSpec::fromJson(json);
    if (!parsed.ok())
        return fail(QStringLiteral("bad job: ") + parsed.error);
    result.spec = parsed.spec;
    return result;
}

QString jobOptionsHelp()
{
    return QStringLiteral(
        "Job options (script, submit; a --job FILE holds the same as JSON, options override it):\n"
        "  --name NAME  --nodes N  --tasks-per-node N  --gpus-per-node N  --cpus-per-task N  --mem 16G\n"
        "  --time 01:30:00  --partition P (--queue Q)  --account A  --module M (repeat)  --env NAME=VALUE "
        "(repeat)\n"
        "  --launch srun|srun-per-node|mpirun|local  --launcher-option X (repeat)  --oversubscribe\n"
        "  --mpi-allow-run-as-root (containers and test machines that run as root)\n"
        "  --container apptainer:IMAGE|singularity:IMAGE|shifter:IMAGE  --workdir DIR\n"
        "  --signal USR1|USR2|TERM|INT  --signal-lead SECONDS  --no-checkpoint-signal  --requeue  --max-restarts "
        "N\n"
        "  --command 'CMD'   run your own command on every rank instead of the bundled trainer\n"
        "  --code DIR        upload this project folder (git's files, or all but .torchdeckignore's) as a snapshot;\n"
        "      the command runs in the run's copy of it, and a resume runs the same code\n"
        "  --log-pattern REGEX (repeat)  turns its log lines into metrics: named groups epoch, epochs, step, loss,\n"
        "      val_loss, accuracy, lr, seconds (docs/metrics-schema.md); built-in patterns cover the tutorials\n"
        "  --per-node-launcher 'torchrun'|'python -m torch.distributed.launch'  (--launch srun-per-node; INT is "
        "its signal)\n"
        "Trainer options (passed to torchdeck-train, see docs/trainer.md):\n"
        "  --model ae|toy|toy-split|resnet18|resnet50  --data fashion-mnist[:DIR]|mnist:DIR|synthetic[:N]\n"
        "  --epochs N  --batch-size N  --lr X  --optimizer adam|sgd  --seed N  --checkpoint-every epoch|N\n"
        "  --keep K  --threads N  --limit N  --log-every N  --backend auto|gloo|nccl  --amp bf16\n"
        "  --channels-last  --device cpu|cuda  --nproc-per-node N  --trainer-arg ARG (repeat: any other "
        "flag)\n");
}

} // namespace torchdeck::term
