#include "core/scheduler/jobstep.h"

#include "core/shellquote.h"

#include <QStringList>

namespace torchdeck {

QString slurmOverlapStepCommand(const QString &jobId, const QString &nodes, const QString &stepName, int timeoutSeconds,
                                const QString &script)
{
    QStringList argv{QStringLiteral("--label"), QStringLiteral("--quiet"), QStringLiteral("--ntasks-per-node=1"),
                     QStringLiteral("--job-name=") + stepName};
    // Without a node list the step gets one node; the job's own list reaches all of them.
    if (!nodes.isEmpty() && nodes != u"(null)")
        argv << QStringLiteral("--nodelist=") + nodes;
    argv << QStringLiteral("sh") << QStringLiteral("-c") << script;
    return QStringLiteral("timeout %1 srun --overlap %2 ").arg(timeoutSeconds).arg(srunJobOption(jobId)) +
           shellJoin(argv);
}

QString srunJobOption(const QString &jobId)
{
    // srun refuses an array task's "123_4" (Invalid numeric value): the task's own job number, as squeue says.
    return jobId.contains(u'_')
               ? QStringLiteral("--jobid=\"$(squeue -h -j %1 -O JobID:0 | head -n 1)\"").arg(shellQuote(jobId))
               : shellQuote(QStringLiteral("--jobid=") + jobId);
}

namespace {
QString oneTaskStep(const QString &jobId, const QString &node, const QStringList &command)
{
    QStringList argv{QStringLiteral("--quiet"), QStringLiteral("--nodes=1"), QStringLiteral("--ntasks=1")};
    if (!node.isEmpty())
        argv << QStringLiteral("--nodelist=") + node;
    return QStringLiteral("srun --overlap %1 ").arg(srunJobOption(jobId)) + shellJoin(argv + command);
}
} // namespace

QString slurmJobCommand(const QString &jobId, const QString &node, const QString &command)
{
    return oneTaskStep(jobId, node, {QStringLiteral("bash"), QStringLiteral("-lc"), command});
}

QString slurmJobShell(const QString &jobId, const QString &node)
{
    return oneTaskStep(jobId, node, {QStringLiteral("--pty"), QStringLiteral("bash"), QStringLiteral("-l")});
}

QString jobProcessesScript(const QString &jobVariable)
{
    if (jobVariable != u"SLURM_JOB_ID")
        return QStringLiteral("on=$(grep -lsxzF \"%1=$j\" /proc/[0-9]*/environ)\nown=\n")
            .arg(jobVariable); // ids hold [ ]
    return QStringLiteral(
        "mine=$(grep -lsxz \"SLURM_JOB_ID=$SLURM_JOB_ID\" /proc/[0-9]*/environ)\n"
        "on=; [ -n \"$mine\" ] && on=$(grep -lsxz \"SLURMD_NODENAME=$n\" $mine)\n"
        "own=; [ -n \"$on\" ] && own=\" $(grep -lsxz \"SLURM_STEP_ID=$SLURM_STEP_ID\" $on | tr '\\n' ' ') \"\n");
}

} // namespace torchdeck
