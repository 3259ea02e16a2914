// PBS (PBS Pro / OpenPBS, or Torque): #PBS directives in the caps' dialect, then the shared body
// (scriptbody.cpp), which also writes the logs and stands in for the warning signal PBS does not send.
#include "core/jobs/jobscript.h"
#include "core/jobs/launchcommand.h"
#include "core/jobs/scriptbody.h"
#include "core/jobs/walltime.h"

#include <QStringList>

namespace torchdeck {

namespace {

// Slurm's "16G" / "500M" / "16000" (MB) as PBS's "16gb" / "500mb" / "16000mb", times `factor`.
QString pbsMemory(const QString &slurmMemory, int factor)
{
    QString digits = slurmMemory;
    QString unit = QStringLiteral("mb");
    if (!digits.isEmpty() && digits.back().isLetter()) {
        unit = digits.back().toLower() + QStringLiteral("b");
        digits.chop(1);
    }
    return QString::number(digits.toLongLong() * factor) + unit;
}

QString dependencyValue(const QList<JobDependency> &dependencies)
{
    QStringList parts;
    for (const JobDependency &dep : dependencies)
        parts.append(dependencyKindName(dep.kind) + u':' + dep.jobIds.join(u':'));
    return parts.join(u',');
}

QStringList pbsDirectives(const JobSpec &spec, const ClusterCaps &caps)
{
    const AllocationShape shape = allocationShape(spec, caps);
    const int nodeCpus = caps.cpusPerNodeOf(spec.partition);
    int cpus = shape.tasksPerNode * shape.cpusPerTask;
    if (nodeCpus > 0)
        cpus = std::min(cpus, nodeCpus); // more would never start; mpirun oversubscribes instead
    QStringList d{QStringLiteral("-N ") + spec.name, QStringLiteral("-S /bin/bash")};
    if (caps.pbsDialect == PbsDialect::PbsPro) {
        QString select =
            QStringLiteral("select=%1:ncpus=%2:mpiprocs=%3").arg(spec.nodes).arg(cpus).arg(spec.tasksPerNode);
        if (spec.cpusPerTask > 1)
            select += QStringLiteral(":ompthreads=%1").arg(spec.cpusPerTask);
        if (spec.gpusPerNode > 0)
            select += QStringLiteral(":ngpus=%1").arg(spec.gpusPerNode);
        if (!spec.memory.isEmpty())
            select += QStringLiteral(":mem=") + pbsMemory(spec.memory, 1);
        d << QStringLiteral("-l ") + select;
        if (spec.nodes > 1)
            d << QStringLiteral("-l place=scatter"); // one chunk per host
    } else {
        QString nodes = QStringLiteral("nodes=%1:ppn=%2").arg(spec.nodes).arg(cpus);
        if (spec.gpusPerNode > 0)
            nodes += QStringLiteral(":gpus=%1").arg(spec.gpusPerNode);
        d << QStringLiteral("-l ") + nodes;
        if (!spec.memory.isEmpty())
            d << QStringLiteral("-l mem=") + pbsMemory(spec.memory, spec.nodes); // Torque: for the whole job
    }
    if (spec.wallTimeSeconds > 0)
        d << QStringLiteral("-l walltime=") + formatPbsWallTime(spec.wallTimeSeconds);
    if (!spec.partition.isEmpty())
        d << QStringLiteral("-q ") + spec.partition;
    if (!spec.account.isEmpty())
        d << QStringLiteral("-A ") + spec.account;
    d << QStringLiteral("-j oe"); // the script writes its own logs; PBS's file gets only early errors
    if (spec.requeue)
        d << QStringLiteral("-r y");
    if (!spec.dependencies.isEmpty())
        d << QStringLiteral("-W depend=") + dependencyValue(spec.dependencies);
    return d;
}

} // namespace

ScriptResult renderPbsScript(const JobSpec &spec, const ClusterCaps &clusterCaps)
{
    ClusterCaps caps = clusterCaps;
    caps.scheduler = SchedulerKind::Pbs;
    ScriptResult result;
    result.errors = validateJobSpec(spec, caps);
    if (!result.ok())
        return result;
    QString text = scriptPreamble(spec);
    for (const QString &directive : pbsDirectives(spec, caps))
        text += QStringLiteral("#PBS ") + directive + u'\n';
    for (const QString &extra : spec.extraDirectives)
        text += (extra.startsWith(u'#') ? extra : QStringLiteral("#PBS ") + extra) + u'\n';
    result.script = text + u'\n' + scriptBody(spec, caps);
    return result;
}

} // namespace torchdeck
