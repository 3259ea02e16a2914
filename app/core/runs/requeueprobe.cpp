#include "core/runs/requeueprobe.h"

#include "core/coretr.h"
#include "core/shellquote.h"

#include <QStringList>

namespace torchdeck {

QString requeueProbeCommand(const ClusterCheckSettings &settings, int waitSeconds)
{
    QStringList options{QStringLiteral("--parsable"), QStringLiteral("--job-name=torchdeck-requeue-check"),
                        QStringLiteral("--requeue"), QStringLiteral("--time=00:05:00"), QStringLiteral("--ntasks=1")};
    if (!settings.partition.isEmpty())
        options.append(QStringLiteral("--partition=") + settings.partition);
    if (!settings.account.isEmpty())
        options.append(QStringLiteral("--account=") + settings.account);
    QStringList quoted;
    for (const QString &option : options)
        quoted.append(shellQuote(option));
    const QString work = settings.workDirectory.startsWith(QStringLiteral("~/"))
                             ? QStringLiteral("\"$HOME\"/") + shellQuote(settings.workDirectory.mid(2))
                             : shellQuote(settings.workDirectory);
    QStringList lines = settings.moduleLines;
    lines << QStringLiteral("dir=%1/check && mkdir -p \"$dir\" || { echo submit-failed no work directory; exit 0; }")
                 .arg(work)
          << QStringLiteral("cat >\"$dir/requeue-probe.sh\" <<'PROBE'") << QStringLiteral("#!/bin/bash")
          << QStringLiteral("if [ \"${SLURM_RESTART_COUNT:-0}\" -ge 1 ]; then echo rerun; exit 0; fi")
          << QStringLiteral("if scontrol requeue \"$SLURM_JOB_ID\"; then sleep 300; else echo refused; fi")
          << QStringLiteral("PROBE")
          << QStringLiteral("id=$(sbatch %1 --output=\"$dir/requeue-%j.out\" \"$dir/requeue-probe.sh\" 2>&1) || "
                            "{ echo \"submit-failed $id\"; exit 0; }")
                 .arg(quoted.join(u' '))
          << QStringLiteral("id=${id%%;*}") << QStringLiteral("for _ in $(seq %1); do").arg(waitSeconds)
          << QStringLiteral("  info=$(scontrol show job \"$id\" 2>/dev/null | tr ' ' '\\n')")
          << QStringLiteral("  restarts=$(sed -n 's/^Restarts=//p' <<<\"$info\")")
          << QStringLiteral("  state=$(sed -n 's/^JobState=//p' <<<\"$info\")")
          << QStringLiteral("  if [ \"${restarts:-0}\" -ge 1 ]; then scancel \"$id\"; echo \"allowed $id\"; exit 0; fi")
          << QStringLiteral("  case \"$state\" in")
          << QStringLiteral("  ''|COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|BOOT_FAIL|OUT_OF_MEMORY|DEADLINE)")
          << QStringLiteral("    echo \"refused $id\"; exit 0;;") << QStringLiteral("  esac")
          << QStringLiteral("  sleep 1") << QStringLiteral("done")
          << QStringLiteral("scancel \"$id\"; echo \"undecided $id\"");
    return lines.join(u'\n') + u'\n';
}

CheckItem requeueProbeItem(int exitCode, const QString &output, int waitSeconds)
{
    using core::Tr;
    const QString name = Tr::tr("In-job requeue");
    const QStringList words = output.trimmed().split(u' ');
    const QString verdict = words.value(0);
    const QString job = words.value(1);
    if (exitCode == 0 && verdict == kRequeueAllowed)
        return {name, true,
                Tr::tr("a job may requeue itself (test job %1): new runs requeue themselves at their wall time, with "
                       "one job id and no laptop needed")
                    .arg(job),
                false, kRequeueAllowed};
    if (exitCode == 0 && verdict == kRequeueRefused)
        return {name, true,
                Tr::tr("a job cannot requeue itself here (test job %1 ended without a restart): the torchdeck agent "
                       "restarts runs from outside")
                    .arg(job),
                true, kRequeueRefused};
    if (exitCode == 0 && verdict == u"undecided")
        return {name,
                true,
                Tr::tr("the test job %1 did not start within %2 s and was cancelled; until this is known the agent "
                       "restarts runs from outside (check again when the queue is shorter)")
                    .arg(job)
                    .arg(waitSeconds),
                true,
                {}};
    return {name,
            true,
            Tr::tr("could not submit the test job (%1); the agent restarts runs from outside")
                .arg(output.trimmed().section(u' ', 1).left(200)),
            true,
            {}};
}

std::optional<InJobRequeue> requeueFinding(const QList<CheckItem> &items)
{
    for (const CheckItem &item : items) {
        if (item.finding == kRequeueAllowed)
            return InJobRequeue::Allowed;
        if (item.finding == kRequeueRefused)
            return InJobRequeue::Refused;
    }
    return std::nullopt;
}

} // namespace torchdeck
