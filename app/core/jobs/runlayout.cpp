#include "core/jobs/runlayout.h"

#include "core/remotepath.h"

#include <algorithm>

namespace torchdeck {

QString workDirectoryCommand(const QString &workDirectory)
{
    // Private: what torchdeck makes there (runs, checkpoints, local jobs' logs) is the user's alone.
    return QStringLiteral("umask 077 && mkdir -p %1/local && cd %1 && pwd -P").arg(remotePathExpression(workDirectory));
}

QString trainerOption(const QStringList &args, const QString &flag)
{
    QString value;
    const QString prefix = flag + u'=';
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args.at(i) == flag && i + 1 < args.size())
            value = args.at(++i);
        else if (args.at(i).startsWith(prefix))
            value = args.at(i).mid(prefix.size());
    }
    return value;
}

qint64 specifiedEpochs(const JobSpec &spec)
{
    if (spec.commandKind != CommandKind::Trainer)
        return -1; // a stray --epochs among a user's command's trainer options says nothing of it
    bool ok = false;
    const qint64 epochs = trainerOption(spec.trainerArgs, QStringLiteral("--epochs")).toLongLong(&ok);
    return ok && epochs >= 0 ? epochs : -1;
}

bool isTrainerOption(QStringView flag)
{
    static constexpr const char16_t *options[] = {
        u"--model",     u"--data",           u"--epochs",           u"--batch-size", u"--lr",
        u"--optimizer", u"--seed",           u"--checkpoint-every", u"--keep",       u"--threads",
        u"--limit",     u"--log-every",      u"--backend",          u"--amp",        u"--bucket-mb",
        u"--device",    u"--nproc-per-node", u"--weight-decay",     u"--momentum",
    };
    return std::any_of(std::begin(options), std::end(options),
                       [flag](const char16_t *option) { return flag == QStringView(option); });
}

QStringList withTrainerOption(const QStringList &args, const QString &flag, const QString &value)
{
    QStringList result;
    const QString prefix = flag + u'=';
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args.at(i) == flag)
            ++i; // and its value
        else if (!args.at(i).startsWith(prefix))
            result.append(args.at(i));
    }
    result << flag << value;
    return result;
}

QString localStateDirectoryOf(const QString &pathInRun)
{
    const qsizetype runs = pathInRun.lastIndexOf(QStringLiteral("/runs/"));
    return runs > 0 ? WorkLayout{pathInRun.left(runs)}.localStateDirectory() : QString();
}

QString environmentValue(const JobSpec &spec, const QString &name)
{
    for (const EnvironmentVariable &var : spec.environment) {
        if (var.name == name)
            return var.value;
    }
    return {};
}

namespace {

// A user's command learns where its run keeps things (docs/metrics-schema.md); a name the user set stays theirs.
void addRunVariables(JobSpec &spec, const RunLayout &layout, int attempt, const ResumeFrom &resume)
{
    QList<EnvironmentVariable> vars{
        {QStringLiteral("TORCHDECK_RUN_ID"), layout.directory.section(u'/', -1)},
        {QStringLiteral("TORCHDECK_ATTEMPT"), QString::number(attempt)},
        {QStringLiteral("TORCHDECK_CHECKPOINT_DIR"), layout.checkpointDirectory()},
        {QStringLiteral("TORCHDECK_METRICS_FILE"), layout.metricsPath(attempt)},
    };
    if (resume.kind() != ResumeFrom::Kind::AsSpecified && resume.kind() != ResumeFrom::Kind::Scratch)
        vars.append({QStringLiteral("TORCHDECK_RESUME"), QStringLiteral("1")});
    for (const EnvironmentVariable &var : vars) {
        const bool named = std::any_of(spec.environment.cbegin(), spec.environment.cend(),
                                       [&var](const EnvironmentVariable &mine) { return mine.name == var.name; });
        if (!named)
            spec.environment.append(var);
    }
}

} // namespace

JobSpec attemptSpec(JobSpec spec, const RunLayout &layout, int attempt, const QString &trainerBinary,
                    const ResumeFrom &resume)
{
    const bool usesCode =
        spec.commandKind == CommandKind::Custom && (!spec.codeDirectory.isEmpty() || !spec.codeSnapshot.isEmpty());
    if (spec.workingDirectory.isEmpty())
        spec.workingDirectory = usesCode ? layout.codeDirectory() : layout.directory;
    if (spec.outputPath.isEmpty())
        spec.outputPath = layout.outputPattern(attempt);
    spec.traceFile = layout.traceFile(attempt);
    if (spec.commandKind != CommandKind::Trainer) {
        addRunVariables(spec, layout, attempt, resume);
        return spec;
    }
    if (!trainerBinary.isEmpty())
        spec.trainerPath = trainerBinary;
    // --resume first: a dangling "--resume" at the end of the user's words must not take the next flag along.
    if (resume.kind() != ResumeFrom::Kind::AsSpecified)
        spec.trainerArgs = withTrainerOption(spec.trainerArgs, QStringLiteral("--resume"), resume.text());
    if (trainerOption(spec.trainerArgs, QStringLiteral("--metrics")).isEmpty())
        spec.trainerArgs << QStringLiteral("--metrics") << layout.metricsPath(attempt);
    if (trainerOption(spec.trainerArgs, QStringLiteral("--checkpoint-dir")).isEmpty())
        spec.trainerArgs << QStringLiteral("--checkpoint-dir") << layout.checkpointDirectory();
    return spec;
}

} // namespace torchdeck
