#include "core/jobs/jobspec.h"

#include <tuple>

namespace torchdeck {

namespace {

auto tied(const JobSpec &s)
{
    return std::tie(s.name, s.nodes, s.tasksPerNode, s.gpusPerNode, s.gpusPerTask, s.gpuType, s.cpusPerTask, s.memory,
                    s.wallTimeSeconds, s.partition, s.account, s.modules, s.environment, s.workingDirectory, s.launch,
                    s.launcherOptions, s.mpiAllowRunAsRoot, s.oversubscribe, s.container, s.commandKind, s.trainerPath,
                    s.trainerArgs, s.customCommand, s.commandOn, s.perNodeLauncher, s.logPatterns, s.codeDirectory,
                    s.codeSnapshot, s.masterPort, s.outputPath, s.errorPath, s.checkpointSignalEnabled,
                    s.checkpointSignal, s.signalLeadSeconds, s.requeue, s.maxRestarts, s.requeueExitCode,
                    s.stallSeconds, s.moveAfterSeconds, s.traceFile, s.dependencies, s.extraDirectives);
}

// Relative log paths are taken from the working directory, where the job runs (Slurm would take them
// from wherever sbatch ran).
QString underWorkingDirectory(const JobSpec &spec, const QString &path)
{
    if (path.isEmpty() || path.startsWith(u'/') || spec.workingDirectory.isEmpty())
        return path;
    QString dir = spec.workingDirectory;
    if (!dir.endsWith(u'/'))
        dir += u'/';
    return dir + path;
}

} // namespace

bool operator==(const ContainerSpec &a, const ContainerSpec &b)
{
    return a.runtime == b.runtime && a.image == b.image && a.options == b.options;
}

bool operator==(const JobDependency &a, const JobDependency &b)
{
    return a.kind == b.kind && a.jobIds == b.jobIds;
}

bool operator==(const ClusterCommand &a, const ClusterCommand &b)
{
    return a.cluster == b.cluster && a.command == b.command;
}

bool operator==(const EnvironmentVariable &a, const EnvironmentVariable &b)
{
    return a.name == b.name && a.value == b.value;
}

bool operator==(const JobSpec &a, const JobSpec &b)
{
    return tied(a) == tied(b);
}

QString defaultCheckpointSignal(const JobSpec &spec)
{
    return spec.gpusOnNode() > 0 ? QStringLiteral("USR2") : QStringLiteral("USR1");
}

QString effectiveCheckpointSignal(const JobSpec &spec)
{
    if (!spec.checkpointSignalEnabled)
        return {};
    QString name = spec.checkpointSignal.trimmed().toUpper();
    if (name.startsWith(u"SIG"))
        name.remove(0, 3);
    // torchrun dies of USR1/USR2; INT it passes on to its workers (measured on the sandbox, docs/job-scripts.md).
    if (name.isEmpty() && customUnderPerNodeLauncher(spec))
        return QStringLiteral("INT");
    return name.isEmpty() ? defaultCheckpointSignal(spec) : name;
}

bool customUnderPerNodeLauncher(const JobSpec &spec)
{
    return spec.commandKind == CommandKind::Custom && spec.launch == LaunchMethod::SrunPerNodeLauncher;
}

QString effectiveOutputPath(const JobSpec &spec)
{
    return underWorkingDirectory(spec,
                                 spec.outputPath.isEmpty() ? spec.name + QStringLiteral("-%j.out") : spec.outputPath);
}

QString effectiveErrorPath(const JobSpec &spec)
{
    return underWorkingDirectory(spec, spec.errorPath);
}

QString expandLogPath(const QString &pattern, const QString &jobId, const QString &jobName)
{
    QString out;
    out.reserve(pattern.size() + jobId.size());
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern[i];
        if (c != u'%' || i + 1 == pattern.size()) {
            out += c;
            continue;
        }
        const QChar next = pattern[++i];
        if (next == u'j')
            out += jobId;
        else if (next == u'x')
            out += jobName;
        else if (next == u'%')
            out += u'%';
        else
            out += QStringView(u"%") + next;
    }
    return out;
}

QString launchMethodName(LaunchMethod method)
{
    switch (method) {
    case LaunchMethod::Srun:
        return QStringLiteral("srun");
    case LaunchMethod::SrunPerNodeLauncher:
        return QStringLiteral("srun-per-node");
    case LaunchMethod::Mpirun:
        return QStringLiteral("mpirun");
    case LaunchMethod::Local:
        return QStringLiteral("local");
    }
    return {};
}

QString containerRuntimeName(ContainerRuntime runtime)
{
    switch (runtime) {
    case ContainerRuntime::None:
        return QStringLiteral("none");
    case ContainerRuntime::Apptainer:
        return QStringLiteral("apptainer");
    case ContainerRuntime::Singularity:
        return QStringLiteral("singularity");
    case ContainerRuntime::Shifter:
        return QStringLiteral("shifter");
    }
    return {};
}

QString commandKindName(CommandKind kind)
{
    return kind == CommandKind::Trainer ? QStringLiteral("trainer") : QStringLiteral("custom");
}

QString dependencyKindName(DependencyKind kind)
{
    switch (kind) {
    case DependencyKind::After:
        return QStringLiteral("after");
    case DependencyKind::AfterOk:
        return QStringLiteral("afterok");
    case DependencyKind::AfterNotOk:
        return QStringLiteral("afternotok");
    case DependencyKind::AfterAny:
        return QStringLiteral("afterany");
    }
    return {};
}

} // namespace torchdeck
