#include "term/joboptions.h"

#include "core/duration.h"
#include "core/jobs/runlayout.h"
#include "core/jobs/signallead.h"
#include "core/jobs/walltime.h"
#include "term/termtr.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace torchdeck::term {

namespace {

// Options that set one key of the job's JSON, and how their value reads.
enum class ValueKind { Text, Integer, WallTime, Duration };
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
    {u"--gpus-per-task", u"gpusPerTask", ValueKind::Integer},
    {u"--gpu-type", u"gpuType", ValueKind::Text},
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
    {u"--stall-after", u"stallSeconds", ValueKind::Integer},
    {u"--move-after", u"moveAfterSeconds", ValueKind::Duration},
    {u"--master-port", u"masterPort", ValueKind::Integer},
};
// Options appended to a list key.
const std::pair<const char16_t *, const char16_t *> listOptions[] = {
    {u"--module", u"modules"},
    {u"--launcher-option", u"launcherOptions"},
    {u"--log-pattern", u"logPatterns"},
    {u"--directive", u"extraDirectives"}, // a raw scheduler option, e.g. --begin=now+1hour or --exclusive
};
// The trainer's flags that take a value (docs/trainer.md); they go to the trainer's command line.
bool readJobFile(const QString &path, QJsonObject *object, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = Tr::tr("cannot read the job file %1: %2").arg(path, file.errorString());
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!document.isObject()) {
        const QString why =
            parseError.error == QJsonParseError::NoError ? Tr::tr("a list or value") : parseError.errorString();
        *error = Tr::tr("the job file %1 is not a JSON object: %2").arg(path, why);
        return false;
    }
    if (const QStringList unknown = unknownJobSpecKeys(document.object()); !unknown.isEmpty()) {
        *error =
            Tr::tr("the job file %1 has keys no job has: %2 (a job's keys: %3)")
                .arg(path, unknown.join(QStringLiteral(", ")), JobSpec().toJson().keys().join(QStringLiteral(", ")));
        return false;
    }
    *object = document.object();
    return true;
}

// "LEFT=RIGHT" appended to the overrides' array `key` as {leftName: LEFT, rightName: RIGHT} (--env, --command-on);
// false when LEFT is missing, or RIGHT and `needsRight`.
bool appendPair(QJsonObject &overrides, const QString &key, const QString &leftName, const QString &rightName,
                const QString &value, bool needsRight)
{
    const qsizetype equals = value.indexOf(u'=');
    if (equals <= 0 || (needsRight && equals + 1 >= value.size()))
        return false;
    QJsonArray pairs = overrides.value(key).toArray();
    pairs.append(QJsonObject{{leftName, value.left(equals)}, {rightName, value.mid(equals + 1)}});
    overrides[key] = pairs;
    return true;
}

} // namespace

QString optionForJobKey(const QString &key)
{
    const QString bare = key.section(u'[', 0, 0).section(u'.', 0, 0);
    for (const SpecOption &option : specOptions)
        if (bare == QStringView(option.key))
            return QString::fromUtf16(option.flag);
    for (const auto &[flag, listKey] : listOptions)
        if (bare == QStringView(listKey))
            return QString::fromUtf16(flag);
    static const QHash<QString, QString> others{
        {QStringLiteral("trainerArgs"), QStringLiteral("the trainer's options")},
        {QStringLiteral("customCommand"), QStringLiteral("--command")},
        {QStringLiteral("commandOn"), QStringLiteral("--command-on")},
        {QStringLiteral("environment"), QStringLiteral("--env")},
        {QStringLiteral("container"), QStringLiteral("--container")},
        {QStringLiteral("code"), QStringLiteral("--code")},
        {QStringLiteral("requeue"), QStringLiteral("--requeue")},
        {QStringLiteral("checkpointSignalEnabled"), QStringLiteral("--no-checkpoint-signal")},
        {QStringLiteral("oversubscribe"), QStringLiteral("--oversubscribe")},
        {QStringLiteral("mpiAllowRunAsRoot"), QStringLiteral("--mpi-allow-run-as-root")},
    };
    return others.value(bare, key);
}

QString formatJobErrorsAsOptions(const QList<JobSpecError> &errors)
{
    QStringList lines;
    for (const JobSpecError &e : errors)
        lines.append(optionForJobKey(e.field) + QStringLiteral(": ") + e.message);
    return lines.join(u'\n');
}

QString jobRefusedAsOptions(const QList<JobSpecError> &errors)
{
    return Tr::tr("the job cannot be submitted:\n%1").arg(formatJobErrorsAsOptions(errors));
}

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
                return fail(Tr::tr("%1 needs a value").arg(arg));
            result.values.insert(arg, value);
            ++i;
            continue;
        }
        if (!arg.startsWith(u'-')) {
            if (!result.cluster.isEmpty())
                return fail(Tr::tr("unexpected argument '%1' (one cluster only; options start with --)").arg(arg));
            result.cluster = arg;
            continue;
        }
        if (arg == u"--requeue" || arg == u"--no-requeue") {
            overrides[u"requeue"] = arg == u"--requeue";
            result.requeueChosen = true;
            continue;
        }
        if (arg == u"--oversubscribe" || arg == u"--no-checkpoint-signal" || arg == u"--mpi-allow-run-as-root") {
            const QString key = arg == u"--oversubscribe"           ? QStringLiteral("oversubscribe")
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
            return fail(Tr::tr("unknown option '%1', or it needs a value (see torchdeck --help)").arg(arg));
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
        if (arg == u"--command-on") {
            if (!appendPair(overrides, QStringLiteral("commandOn"), QStringLiteral("cluster"),
                            QStringLiteral("command"), value, true))
                return fail(Tr::tr("--command-on wants CLUSTER=COMMAND, got '%1'").arg(value));
            continue;
        }
        if (arg == u"--code") {
            const QFileInfo folder(value);
            if (!folder.isDir())
                return fail(Tr::tr("--code wants a folder of your project, and %1 is none").arg(value));
            overrides[u"code"] = folder.absoluteFilePath();
            continue;
        }
        if (arg == u"--env") {
            if (!appendPair(overrides, QStringLiteral("environment"), QStringLiteral("name"), QStringLiteral("value"),
                            value, false))
                return fail(Tr::tr("--env wants NAME=VALUE, got '%1'").arg(value));
            continue;
        }
        if (arg == u"--container") {
            const qsizetype colon = value.indexOf(u':');
            if (colon <= 0)
                return fail(
                    Tr::tr("--container wants RUNTIME:IMAGE (apptainer, singularity or shifter), got '%1'").arg(value));
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
                bool whole = false;
                const qint64 large = value.toLongLong(&whole);
                if (!ok && !whole)
                    return fail(Tr::tr("%1 wants a whole number, got '%2'").arg(arg, value));
                // A number past an int's range goes on to the job's own range check, which says the bound.
                overrides[key] = ok ? QJsonValue(number) : QJsonValue(double(large));
            } else if (option.kind == ValueKind::Duration) {
                const auto seconds = parseDuration(value);
                if (!seconds || *seconds > 30 * 86400)
                    return fail(Tr::tr("%1 wants a duration like 30m, 2h or 1h30m (at most 30 days), got '%2'")
                                    .arg(arg, value));
                overrides[key] = *seconds;
            } else {
                const auto seconds = parseWallTime(value);
                if (!seconds)
                    return fail(
                        Tr::tr("--time wants a wall time like 30, 01:30:00 or 1-12:00:00, got '%1'").arg(value));
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
        if (isTrainerOption(arg)) {
            known = true;
            trainerArgs = withTrainerOption(trainerArgs, arg, value);
            trainerArgsGiven = true;
        }
        if (!known)
            return fail(Tr::tr("unknown option '%1' (see torchdeck --help)").arg(arg));
    }
    for (auto it = overrides.begin(); it != overrides.end(); ++it)
        json[it.key()] = it.value();
    if (trainerArgsGiven) {
        // Command-line trainer options override the job file's, flag by flag.
        QStringList merged;
        for (const auto &word : json.value(u"trainerArgs").toArray())
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
        for (const auto &word : json.value(u"trainerArgs").toArray())
            finalArgs.append(word.toString());
        const QString model = trainerOption(finalArgs, QStringLiteral("--model"));
        json[u"name"] = model.isEmpty() ? QStringLiteral("torchdeck-job") : QStringLiteral("train-") + model;
    }
    const JobSpec::FromJson parsed = JobSpec::fromJson(json);
    if (!parsed.ok()) {
        // "key: what": an option's value named by the option, a job file's by its key.
        const QString key = parsed.error.section(QStringLiteral(": "), 0, 0);
        return fail(overrides.contains(key.section(u'[', 0, 0).section(u'.', 0, 0))
                        ? optionForJobKey(key) + parsed.error.mid(key.size())
                        : Tr::tr("bad job: %1").arg(parsed.error));
    }
    result.spec = parsed.spec;
    // No lead named (option or job file): one that fits the wall time, so a short test job submits as it is.
    if (!json.contains(u"signalLeadSeconds"))
        result.spec.signalLeadSeconds = defaultSignalLeadSeconds(result.spec);
    return result;
}

} // namespace torchdeck::term
