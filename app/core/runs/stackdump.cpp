#include "core/runs/stackdump.h"

#include "core/scheduler/jobstep.h"
#include "core/scheduler/nodeaddress.h"
#include "core/shellquote.h"

#include <QMap>
#include <QStringList>

namespace torchdeck {

namespace {

constexpr int kDumpSeconds = 120; // gdb reads symbols of a big process for a while
constexpr int kLinesPerProcess = 400;

// On each node: every process of the job (core/scheduler/jobstep.h) under a header, then its stack.
QString nodeScript(const QString &jobVariable)
{
    return QStringLiteral("n=${SLURMD_NODENAME:-$(hostname -s)}\n") + jobProcessesScript(jobVariable) +
           QStringLiteral(
               "for f in $on; do\n"
               "  case \"$own\" in *\" $f \"*) continue;; esac\n"
               "  p=${f#/proc/}; p=${p%/environ}\n"
               "  c=$(cat /proc/$p/comm 2>/dev/null) || continue\n"
               "  case \"$c\" in sh|bash|dash|srun|slurm_script) continue;; esac\n"
               "  r=$(tr '\\0' '\\n' <\"$f\" 2>/dev/null | sed -n 's/^RANK=//p;s/^SLURM_PROCID=//p;s/^PMI_RANK=//p'"
               " | head -n1)\n"
               "  echo \"== $n pid $p rank ${r:-?} ($c) ==\"\n"
               "  if command -v py-spy >/dev/null 2>&1 && case \"$c\" in python*) true;; *) false;; esac; then\n"
               "    py-spy dump --pid \"$p\" 2>&1 | head -n %1\n"
               "  elif command -v gdb >/dev/null 2>&1; then\n"
               "    gdb -p \"$p\" -batch -ex 'thread apply all bt' 2>&1 | grep -v -e '^\\[New LWP' -e "
               "'^\\[Thread debugging' -e '^Using host libthread_db' | head -n %1\n"
               "  else\n"
               "    echo \"neither py-spy nor gdb is installed on $n\"\n"
               "  fi\n"
               "done\n"
               "exit 0\n")
               .arg(kLinesPerProcess);
}

} // namespace

QString stackDumpCommand(SchedulerKind kind, const QString &jobId, const QString &nodes)
{
    switch (kind) {
    case SchedulerKind::Slurm:
        return slurmOverlapStepCommand(jobId, nodes, QStringLiteral("torchdeck-stack"), kDumpSeconds,
                                       nodeScript(QStringLiteral("SLURM_JOB_ID")));
    case SchedulerKind::Pbs: {
        const QString node = firstNode(SchedulerKind::Pbs, nodes);
        if (node.isEmpty())
            return {};
        const QString script =
            QStringLiteral("j=%1\n").arg(shellQuote(jobId)) + nodeScript(QStringLiteral("PBS_JOBID"));
        return QStringLiteral("timeout %1 ssh -o BatchMode=yes -o ConnectTimeout=5 %2 sh -c %3")
            .arg(kDumpSeconds)
            .arg(shellQuote(node), shellQuote(shellQuote(script)));
    }
    case SchedulerKind::Local:
        break;
    }
    return {};
}

QString assembleStackDump(SchedulerKind kind, const QByteArray &output)
{
    const QString text = QString::fromUtf8(output);
    if (kind != SchedulerKind::Slurm)
        return text;
    QMap<int, QStringList> byLabel;
    const auto lines = text.split(u'\n');
    for (const QString &line : lines) {
        const qsizetype colon = line.indexOf(QStringLiteral(": "));
        bool ok = false;
        const int label = colon > 0 ? line.left(colon).trimmed().toInt(&ok) : -1;
        if (ok)
            byLabel[label].append(line.mid(colon + 2));
        else if (!line.isEmpty())
            byLabel[-1].append(line); // srun's own words
    }
    QStringList assembled;
    for (auto it = byLabel.cbegin(); it != byLabel.cend(); ++it)
        assembled.append(it.value().join(u'\n'));
    return assembled.join(u'\n') + u'\n';
}

} // namespace torchdeck
