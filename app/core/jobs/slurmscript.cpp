// Slurm: #SBATCH directives, then the shared body (scriptbody.cpp).
#include "core/jobs/jobscript.h"
#include "core/jobs/launchcommand.h"
#include "core/jobs/scriptbody.h"
#include "core/jobs/walltime.h"

#include <QStringList>

namespace torchdeck {

namespace {

QString dependencyValue(const QList<JobDependency> &dependencies)
{
    QStringList parts;
    for (const JobDependency &dep : dependencies)
        parts.append(dependencyKindName(dep.kind) + u':' + dep.jobIds.join(u':'));
    return parts.join(u','); // a comma: all of them must hold
}

QStringList slurmDirectives(const JobSpec &spec, const ClusterCaps &caps)
{
    const AllocationShape shape = allocationShape(spec, caps);
    QStringList d{QStringLiteral("--job-name=") + spec.name, QStringLiteral("--nodes=%1").arg(spec.nodes),
                  QStringLiteral("--ntasks-per-node=%1").arg(shape.tasksPerNode),
                  QStringLiteral("--cpus-per-task=%1").arg(shape.cpusPerTask)};
    if (shape.overcommit)
        d << QStringLiteral("--overcommit");
    if (spec.gpusPerNode > 0) {
        d << (caps.gpuRequest == GpuRequestStyle::Gres
                  ? QStringLiteral("--gres=gpu:") + gpuCount(spec, spec.gpusPerNode)
                  : QStringLiteral("--gpus-per-node=") + gpuCount(spec, spec.gpusPerNode));
    }
    if (shape.gpusPerTask > 0)
        d << QStringLiteral("--gpus-per-task=") + gpuCount(spec, shape.gpusPerTask);
    if (!spec.memory.isEmpty())
        d << QStringLiteral("--mem=") + spec.memory.toUpper();
    if (spec.wallTimeSeconds > 0)
        d << QStringLiteral("--time=") + formatSlurmWallTime(spec.wallTimeSeconds);
    if (!spec.partition.isEmpty())
        d << QStringLiteral("--partition=") + spec.partition;
    if (!spec.account.isEmpty())
        d << QStringLiteral("--account=") + spec.account;
    d << QStringLiteral("--output=") + effectiveOutputPath(spec);
    if (!effectiveErrorPath(spec).isEmpty())
        d << QStringLiteral("--error=") + effectiveErrorPath(spec);
    d << QStringLiteral("--open-mode=append"); // a requeued job keeps the earlier attempts' output
    const QString signal = effectiveCheckpointSignal(spec);
    // B: signals the batch shell, which passes the signal on; without it Slurm signals the steps' processes,
    // the way a per-node launcher needs it (srun itself does not pass INT on).
    if (!signal.isEmpty() && spec.signalLeadSeconds > 0)
        d << QStringLiteral("--signal=%1%2@%3")
                 .arg(customUnderPerNodeLauncher(spec) ? QString() : QStringLiteral("B:"), signal)
                 .arg(spec.signalLeadSeconds);
    if (spec.requeue)
        d << QStringLiteral("--requeue");
    if (!spec.dependencies.isEmpty())
        d << QStringLiteral("--dependency=") + dependencyValue(spec.dependencies);
    return d;
}

} // namespace

ScriptResult renderSlurmScript(const JobSpec &spec, const ClusterCaps &clusterCaps)
{
    ClusterCaps caps = clusterCaps;
    caps.scheduler = SchedulerKind::Slurm;
    ScriptResult result;
    result.errors = validateJobSpec(spec, caps);
    if (!result.ok())
        return result;
    QString text = scriptPreamble(spec);
    for (const QString &directive : slurmDirectives(spec, caps))
        text += QStringLiteral("#SBATCH ") + directive + u'\n';
    for (const QString &extra : spec.extraDirectives)
        text += (extra.startsWith(u'#') ? extra : QStringLiteral("#SBATCH ") + extra) + u'\n';
    result.script = text + u'\n' + scriptBody(spec, caps);
    return result;
}

} // namespace torchdeck
