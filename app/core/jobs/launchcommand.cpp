#include "core/jobs/launchcommand.h"

#include "core/remotepath.h"
#include "core/shellquote.h"

#include <QProcess>

namespace torchdeck {

namespace {

QString number(int n)
{
    return QString::number(n);
}

QStringList quoted(const QStringList &words)
{
    QStringList out;
    out.reserve(words.size());
    for (const QString &w : words)
        out.append(shellQuote(w));
    return out;
}

bool onePerNode(const JobSpec &spec)
{
    return spec.launch == LaunchMethod::SrunPerNodeLauncher || spec.launch == LaunchMethod::Local;
}

QStringList srunWords(const JobSpec &spec, const AllocationShape &shape)
{
    // No --kill-on-bad-exit: the ranks that stop for a checkpoint exit 75 before rank 0 has written it, and
    // srun would kill rank 0 then.
    QStringList w{QStringLiteral("srun"), QStringLiteral("--ntasks-per-node=") + number(shape.tasksPerNode)};
    // Since Slurm 22.05 srun no longer inherits --cpus-per-task from sbatch.
    if (shape.cpusPerTask > 1)
        w.append(QStringLiteral("--cpus-per-task=") + number(shape.cpusPerTask));
    if (shape.gpusPerTask > 0) // said again for the same reason: the binding is the step's
        w.append(QStringLiteral("--gpus-per-task=") + gpuCount(spec, shape.gpusPerTask));
    if (shape.overcommit)
        w.append(QStringLiteral("--overcommit"));
    return w + quoted(spec.launcherOptions);
}

QStringList mpirunWords(const JobSpec &spec, const ClusterCaps &caps, const AllocationShape &shape)
{
    // ppr places T ranks on every node whatever the slot count (a Torque nodefile lists ppn slots per node);
    // --bind-to none leaves a rank's threads free to use all its CPUs.
    QStringList w{QStringLiteral("mpirun"),
                  QStringLiteral("-np"),
                  number(spec.totalTasks()),
                  QStringLiteral("--map-by"),
                  QStringLiteral("ppr:%1:node").arg(spec.tasksPerNode),
                  QStringLiteral("--bind-to"),
                  QStringLiteral("none")};
    if (shape.overcommit)
        w.append(QStringLiteral("--oversubscribe"));
    if (spec.mpiAllowRunAsRoot)
        w.append(QStringLiteral("--allow-run-as-root"));
    if (caps.scheduler == SchedulerKind::Pbs)
        w.append(QStringLiteral("${td_hostfile[@]+\"${td_hostfile[@]}\"}"));
    // Open MPI passes no environment to remote ranks unless asked; -x NAME sends the current value.
    QStringList names{QStringLiteral("MASTER_ADDR"), QStringLiteral("MASTER_PORT")};
    for (const EnvironmentVariable &var : spec.environment)
        names.append(var.name);
    for (const QString &name : names)
        w << QStringLiteral("-x") << name;
    return w + quoted(spec.launcherOptions);
}

QStringList containerWords(const JobSpec &spec)
{
    const ContainerSpec &c = spec.container;
    switch (c.runtime) {
    case ContainerRuntime::None:
        return {};
    case ContainerRuntime::Apptainer:
    case ContainerRuntime::Singularity: {
        QStringList w{c.runtime == ContainerRuntime::Apptainer ? QStringLiteral("apptainer")
                                                               : QStringLiteral("singularity"),
                      QStringLiteral("exec")};
        const bool gpuFlag = c.options.contains(QStringLiteral("--nv")) ||
                             c.options.contains(QStringLiteral("--nvccli")) ||
                             c.options.contains(QStringLiteral("--rocm"));
        if (spec.gpusOnNode() > 0 && !gpuFlag)
            w.append(QStringLiteral("--nv"));
        return w + quoted(c.options) + QStringList{shellQuote(c.image)};
    }
    case ContainerRuntime::Shifter:
        return QStringList{QStringLiteral("shifter"), shellQuote(QStringLiteral("--image=") + c.image)} +
               quoted(c.options);
    }
    return {};
}

// The torchrun-style variables (RANK, LOCAL_RANK, NODE_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE) set from what srun or
// mpirun gives each rank, so a script written for one launch method runs under the others.
QString rankEnvironment(const JobSpec &spec)
{
    const QString sizes =
        QStringLiteral(" WORLD_SIZE=%1 LOCAL_WORLD_SIZE=%2").arg(spec.totalTasks()).arg(spec.tasksPerNode);
    if (spec.launch == LaunchMethod::Srun)
        return QStringLiteral("export RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID NODE_RANK=$SLURM_NODEID") + sizes;
    // Open MPI's names, then MPICH's and Intel MPI's.
    return QStringLiteral("export RANK=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}"
                          " LOCAL_RANK=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}") +
           sizes + QStringLiteral("; export NODE_RANK=$((RANK / %1))").arg(spec.tasksPerNode);
}

// torch.distributed.launch (seed 004) takes torchrun's options; it wants --use_env with --no_python and
// then sets LOCAL_RANK instead of passing --local_rank, which the command gets here as the launcher would.
bool launcherIsDistributedLaunch(const JobSpec &spec)
{
    return QProcess::splitCommand(spec.perNodeLauncher).contains(u"torch.distributed.launch");
}

QStringList perNodeLauncherWords(const JobSpec &spec)
{
    QStringList w = findsTorchrun(spec) ? QStringList{QStringLiteral("\"${td_torchrun[@]}\"")}
                                        : quoted(QProcess::splitCommand(spec.perNodeLauncher));
    const QStringList names = torchrunOptionNames();
    const QStringList values{number(spec.nodes), number(spec.tasksPerNode), QStringLiteral("c10d"),
                             QStringLiteral("\"$MASTER_ADDR:$MASTER_PORT\""), QStringLiteral("\"$SLURM_JOB_ID\"")};
    for (qsizetype i = 0; i < values.size(); ++i)
        w << names.at(i) + u'=' + values.at(i);
    w << names.last();
    if (launcherIsDistributedLaunch(spec))
        w << QStringLiteral("--use_env");
    return w;
}

// What each worker of a per-node launcher runs. With the warning signal, torchrun exits 1 however its workers
// stopped: rank 0 leaves the script's stop file when it stops with the requeue code, so that code is not lost.
QStringList perNodeWorkerWords(const JobSpec &spec)
{
    QString command = spec.customCommand;
    if (launcherIsDistributedLaunch(spec))
        command += QStringLiteral(" --local_rank=\"$LOCAL_RANK\"");
    if (effectiveCheckpointSignal(spec).isEmpty())
        return {QStringLiteral("bash -c ") + shellQuote(command)};
    const QString wrapper =
        QStringLiteral("bash -c \"$1\"; td_status=$?; if [ \"$td_status\" -eq %1 ] && [ \"${RANK:-}\" = 0 ]; "
                       "then : >\"$2\"; fi; exit \"$td_status\"")
            .arg(spec.requeueExitCode);
    return {QStringLiteral("bash -c ") + shellQuote(wrapper), QStringLiteral("torchdeck-rank"), shellQuote(command),
            QStringLiteral("\"$td_stop_file\"")};
}

QStringList commandWords(const JobSpec &spec)
{
    if (spec.commandKind == CommandKind::Custom) {
        switch (spec.launch) {
        case LaunchMethod::Local:
            return {QStringLiteral("bash -c ") + shellQuote(spec.customCommand)};
        case LaunchMethod::SrunPerNodeLauncher: // one launcher per node starts the node's ranks
            return perNodeLauncherWords(spec) + perNodeWorkerWords(spec);
        case LaunchMethod::Srun:
        case LaunchMethod::Mpirun: // the user's command as $1 of a shell that sets the rank variables first
            return {QStringLiteral("bash -c ") +
                        shellQuote(rankEnvironment(spec) + QStringLiteral("; exec bash -c \"$1\"")),
                    QStringLiteral("torchdeck-rank"), shellQuote(spec.customCommand)};
        }
    }
    QStringList w{remotePathExpression(spec.trainerPath)}; // a profile's "~/bin/torchdeck-train" too
    if (spec.launch == LaunchMethod::SrunPerNodeLauncher ||
        (spec.launch == LaunchMethod::Local && spec.tasksPerNode > 1))
        w.append(QStringLiteral("--nproc-per-node=") + number(spec.tasksPerNode));
    return w + quoted(spec.trainerArgs);
}

} // namespace

AllocationShape allocationShape(const JobSpec &spec, const ClusterCaps &caps)
{
    AllocationShape shape;
    const int nodeCpus = caps.cpusPerNodeOf(spec.partition);
    const int wanted = spec.tasksPerNode * spec.cpusPerTask;
    if (onePerNode(spec)) {
        shape.tasksPerNode = 1;
        shape.cpusPerTask = nodeCpus > 0 ? std::min(wanted, nodeCpus) : wanted;
        shape.gpusPerTask = spec.gpusPerTask * spec.tasksPerNode;
        shape.overcommit = spec.oversubscribe;
    } else {
        shape.tasksPerNode = spec.tasksPerNode;
        shape.cpusPerTask = spec.cpusPerTask;
        shape.gpusPerTask = spec.gpusPerTask;
        shape.overcommit = spec.oversubscribe || (nodeCpus > 0 && wanted > nodeCpus);
    }
    return shape;
}

QString gpuCount(const JobSpec &spec, int count)
{
    return spec.gpuType.isEmpty() ? number(count) : spec.gpuType + u':' + number(count);
}

bool findsTorchrun(const JobSpec &spec)
{
    return customUnderPerNodeLauncher(spec) && spec.perNodeLauncher == u"torchrun" &&
           spec.container.runtime == ContainerRuntime::None;
}

QStringList torchrunOptionNames()
{
    return {QStringLiteral("--nnodes"),        QStringLiteral("--nproc_per_node"), QStringLiteral("--rdzv_backend"),
            QStringLiteral("--rdzv_endpoint"), QStringLiteral("--rdzv_id"),        QStringLiteral("--no_python")};
}

bool exportsRendezvous(const JobSpec &spec)
{
    return spec.launch != LaunchMethod::Local;
}

QString LaunchCommand::text(const QString &indent) const
{
    QStringList lines;
    for (const QStringList &group : groups) {
        if (!group.isEmpty())
            lines.append(group.join(u' '));
    }
    return lines.join(QStringLiteral(" \\\n") + indent + QStringLiteral("  "));
}

LaunchCommand buildLaunchCommand(const JobSpec &spec, const ClusterCaps &caps)
{
    const AllocationShape shape = allocationShape(spec, caps);
    LaunchCommand cmd;
    switch (spec.launch) {
    case LaunchMethod::Srun:
    case LaunchMethod::SrunPerNodeLauncher:
        cmd.groups.append(srunWords(spec, shape));
        break;
    case LaunchMethod::Mpirun:
        cmd.groups.append(mpirunWords(spec, caps, shape));
        break;
    case LaunchMethod::Local:
        break;
    }
    cmd.groups.append(containerWords(spec));
    cmd.groups.append(commandWords(spec));
    return cmd;
}

} // namespace torchdeck
