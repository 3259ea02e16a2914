#include "core/jobs/scriptbody.h"

#include "core/jobs/jobtrace.h"
#include "core/jobs/launchcommand.h"
#include "core/shellquote.h"

#include <QStringList>

namespace torchdeck {

namespace {

QString methodDescription(const JobSpec &spec)
{
    switch (spec.launch) {
    case LaunchMethod::Srun:
        return QStringLiteral("srun, one task per rank");
    case LaunchMethod::SrunPerNodeLauncher:
        return spec.commandKind == CommandKind::Trainer ? QStringLiteral("srun, one trainer launcher per node")
                                                        : QStringLiteral("srun, one torchrun per node");
    case LaunchMethod::Mpirun:
        return QStringLiteral("one mpirun for all nodes");
    case LaunchMethod::Local:
        // A custom command starts its ranks itself (mp.spawn, torchrun --standalone): it runs once, on their CPUs.
        return spec.commandKind == CommandKind::Custom && spec.tasksPerNode > 1
                   ? QStringLiteral("run directly, once: the command starts its %1 ranks").arg(spec.tasksPerNode)
                   : QStringLiteral("run directly");
    }
    return {};
}

// Shell expression of the job id, set before anything uses it.
QString jobIdExpression(SchedulerKind scheduler)
{
    return scheduler == SchedulerKind::Slurm ? QStringLiteral("\"$SLURM_JOB_ID\"") : QStringLiteral("\"$td_job_id\"");
}

void setup(QStringList &out, const JobSpec &spec, const ClusterCaps &caps)
{
    const bool modules = !spec.modules.isEmpty();
    out << (modules ? QStringLiteral("set -eo pipefail") : QStringLiteral("set -euo pipefail"));
    if (caps.scheduler == SchedulerKind::Pbs)
        out << QStringLiteral("td_job_id=${PBS_JOBID:-${SLURM_JOB_ID:-unknown}}");
    else if (caps.scheduler == SchedulerKind::Local)
        out << QStringLiteral("td_job_id=${TORCHDECK_LOCAL_JOB_ID:-$$} # the id the dashboard knows this run "
                              "by: its runner's PID");
    out << jobTraceLines(spec.traceFile, caps.scheduler);
    if (!spec.workingDirectory.isEmpty())
        out << QStringLiteral("cd -- ") + shellQuote(spec.workingDirectory);
    else if (caps.scheduler == SchedulerKind::Pbs)
        out << QStringLiteral("if [ -n \"${PBS_O_WORKDIR:-}\" ]; then cd -- \"$PBS_O_WORKDIR\"; fi");
    if (caps.scheduler != SchedulerKind::Slurm) {
        // Slurm writes the logs itself; here the script does, live and appended across reruns.
        const QString id = jobIdExpression(caps.scheduler);
        const QString err = effectiveErrorPath(spec);
        out << QStringLiteral("exec >>") + logPathWord(effectiveOutputPath(spec), spec.name, id) +
                   (err.isEmpty() ? QStringLiteral(" 2>&1") : QStringLiteral(" 2>>") + logPathWord(err, spec.name, id));
    }
    if (modules) {
        for (const QString &module : spec.modules)
            out << QStringLiteral("module load ") + shellQuote(module);
        out << QStringLiteral("set -u # after the modules: some module systems read unset variables");
    }
}

void environment(QStringList &out, const JobSpec &spec, const ClusterCaps &caps)
{
    if (exportsRendezvous(spec)) {
        if (caps.scheduler == SchedulerKind::Slurm) {
            // The first node's NodeAddr: a node's name need not resolve from the others (it does not on
            // the sandbox cluster, where every node is 127.0.0.1); its name is the fallback.
            out << QStringLiteral("first_node=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed -n 1p)")
                << QStringLiteral("MASTER_ADDR=$(scontrol show node \"$first_node\" 2>/dev/null"
                                  " | sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p' || true)")
                << QStringLiteral("MASTER_ADDR=${MASTER_ADDR:-$first_node}");
        } else if (caps.scheduler == SchedulerKind::Pbs) {
            out << QStringLiteral("if [ -r \"${PBS_NODEFILE:-}\" ]; then MASTER_ADDR=$(head -n 1 \"$PBS_NODEFILE\"); "
                                  "else MASTER_ADDR=$(hostname); fi");
        } else {
            out << QStringLiteral("MASTER_ADDR=127.0.0.1"); // this machine, whatever its name resolves to
        }
        out << QStringLiteral("export MASTER_ADDR");
        if (spec.masterPort > 0) {
            out << QStringLiteral("export MASTER_PORT=") + QString::number(spec.masterPort);
        } else if (caps.scheduler == SchedulerKind::Slurm) {
            out << QStringLiteral("export MASTER_PORT=$((15000 + SLURM_JOB_ID % 10000))");
        } else {
            out << QStringLiteral("td_job_number=${td_job_id%%[!0-9]*}");
            out << QStringLiteral("export MASTER_PORT=$((15000 + ${td_job_number:-0} % 10000))");
        }
    }
    for (const EnvironmentVariable &var : spec.environment)
        out << QStringLiteral("export ") + var.name + u'=' + shellQuote(var.value);
    if (findsTorchrun(spec)) {
        out << QStringLiteral("td_torchrun=(torchrun)");
        out << QStringLiteral("# No torchrun on PATH (PyTorch 1.9, some modules): the same launcher, run as a module.");
        out << QStringLiteral("command -v torchrun >/dev/null 2>&1 || td_torchrun=(python3 -m torch.distributed.run)");
    }
    if (caps.scheduler == SchedulerKind::Pbs && spec.launch == LaunchMethod::Mpirun) {
        out << QStringLiteral("td_hostfile=()");
        out << QStringLiteral("if [ -r \"${PBS_NODEFILE:-}\" ]; then td_hostfile=(--hostfile \"$PBS_NODEFILE\"); fi");
    }
}

bool usesTimer(const JobSpec &spec, const ClusterCaps &caps)
{
    return caps.scheduler == SchedulerKind::Pbs && !effectiveCheckpointSignal(spec).isEmpty() &&
           spec.signalLeadSeconds > 0 && spec.wallTimeSeconds > spec.signalLeadSeconds;
}

bool requeues(const JobSpec &spec, const ClusterCaps &caps)
{
    return spec.requeue && caps.scheduler != SchedulerKind::Local;
}

// Slurm signals torchrun and its workers itself (no B:), and torchrun exits 1 however they stopped: the
// workers' wrapper (launchcommand.cpp) leaves a file when rank 0 stops with the requeue code.
void launchUnderPerNodeLauncher(QStringList &out, const JobSpec &spec, const QString &command, const QString &signal)
{
    if (spec.signalLeadSeconds > 0)
        out << QStringLiteral("# Slurm sends %1 to torchrun and its workers, not to this shell, %2 s before the wall "
                              "time (--signal=%1@%2).")
                   .arg(signal)
                   .arg(spec.signalLeadSeconds);
    out << QStringLiteral("# The workers checkpoint and stop; torchrun then exits 1, so rank 0's exit code %1 is "
                          "kept in a file.")
               .arg(spec.requeueExitCode);
    out << QStringLiteral("td_stop_file=\"$PWD/.torchdeck-stop-$SLURM_JOB_ID\"");
    out << QStringLiteral("rm -f -- \"$td_stop_file\"");
    out << QStringLiteral("td_status=0");
    out << command + QStringLiteral(" || td_status=$?");
    out << QStringLiteral("if [ -e \"$td_stop_file\" ]; then td_status=%1; rm -f -- \"$td_stop_file\"; fi")
               .arg(spec.requeueExitCode);
}

void launch(QStringList &out, const JobSpec &spec, const ClusterCaps &caps)
{
    const QString command = buildLaunchCommand(spec, caps).text(QString());
    const QString signal = effectiveCheckpointSignal(spec);
    if (!signal.isEmpty() && customUnderPerNodeLauncher(spec))
        return launchUnderPerNodeLauncher(out, spec, command, signal);
    if (signal.isEmpty()) {
        if (!requeues(spec, caps)) {
            out << command;
            return;
        }
        out << QStringLiteral("td_status=0") << command + QStringLiteral(" || td_status=$?");
        return;
    }
    if (caps.scheduler == SchedulerKind::Slurm && spec.signalLeadSeconds > 0)
        out << QStringLiteral("# Slurm sends %1 to this shell %2 s before the wall time (--signal=B:%1@%2).")
                   .arg(signal)
                   .arg(spec.signalLeadSeconds);
    out << QStringLiteral("# On %1 the ranks checkpoint and stop: the shell passes it on and waits for them.")
               .arg(signal);
    out << QStringLiteral("td_pid=");
    out << QStringLiteral(
               "td_forward() { if [ -n \"$td_pid\" ]; then kill -s %1 \"$td_pid\" 2>/dev/null || true; fi; }")
               .arg(signal);
    out << QStringLiteral("trap td_forward ") + signal;
    if (usesTimer(spec, caps)) {
        out << QStringLiteral("# PBS sends no warning before the wall time: this timer does, %1 s before it.")
                   .arg(spec.signalLeadSeconds);
        out << QStringLiteral("td_timer() { sleep \"$1\" & td_sleep=$!; trap 'kill \"$td_sleep\" 2>/dev/null; exit 0' "
                              "TERM; wait \"$td_sleep\" && kill -s %1 \"$2\"; }")
                   .arg(signal);
        out << QStringLiteral("td_timer %1 \"$$\" &").arg(spec.wallTimeSeconds - spec.signalLeadSeconds);
        out << QStringLiteral("td_timer_pid=$!");
    }
    out << command + QStringLiteral(" &");
    out << QStringLiteral("td_pid=$!");
    out << QStringLiteral("td_status=0");
    out << QStringLiteral("while :; do");
    out << QStringLiteral("  wait \"$td_pid\" && td_status=0 || td_status=$?");
    out << QStringLiteral("  kill -0 \"$td_pid\" 2>/dev/null || break # still running: the signal cut the wait short");
    out << QStringLiteral("done");
    if (usesTimer(spec, caps))
        out << QStringLiteral("kill \"$td_timer_pid\" 2>/dev/null || true");
}

void requeue(QStringList &out, const JobSpec &spec, const ClusterCaps &caps)
{
    const QString max = QString::number(spec.maxRestarts);
    out << QStringLiteral("# Exit code %1: the command checkpointed and asks to run again.").arg(spec.requeueExitCode);
    out << QStringLiteral("if [ \"$td_status\" -eq %1 ]; then").arg(spec.requeueExitCode);
    QString id;
    QString command;
    if (caps.scheduler == SchedulerKind::Slurm) {
        id = QStringLiteral("$SLURM_JOB_ID");
        command = QStringLiteral("scontrol requeue \"$SLURM_JOB_ID\"");
        out << QStringLiteral("  td_restarts=${SLURM_RESTART_COUNT:-0}");
        out << QStringLiteral("  if [ \"$td_restarts\" -lt %1 ]; then").arg(max);
    } else {
        // PBS keeps no restart count in the environment: a file beside the job does, per job id.
        id = QStringLiteral("$td_job_id");
        command = QStringLiteral("qrerun \"$td_job_id\"");
        out << QStringLiteral("  td_count_file=.torchdeck-restarts-$td_job_id");
        out << QStringLiteral("  td_restarts=$(cat \"$td_count_file\" 2>/dev/null || echo 0)");
        out << QStringLiteral("  if [ \"$td_restarts\" -lt %1 ]; then").arg(max);
        out << QStringLiteral("    echo \"$((td_restarts + 1))\" >\"$td_count_file\"");
    }
    out << QStringLiteral("    echo \"torchdeck: requeueing job %1 (restart $((td_restarts + 1)) of %2)\" >&2")
               .arg(id, max);
    out << QStringLiteral("    %1 || echo \"torchdeck: requeue failed; the dashboard can resubmit\" >&2").arg(command);
    out << QStringLiteral("  else");
    out << QStringLiteral("    echo \"torchdeck: not requeueing job %1: %2 restarts done\" >&2").arg(id, max);
    out << QStringLiteral("  fi");
    out << QStringLiteral("fi");
}

} // namespace

QString scriptPreamble(const JobSpec &spec)
{
    QStringList out;
    out << (spec.modules.isEmpty() ? QStringLiteral("#!/bin/bash") : QStringLiteral("#!/bin/bash -l"));
    QString what = QStringLiteral("# torchdeck job %1: %2 node(s) x %3 rank(s), %4")
                       .arg(spec.name)
                       .arg(spec.nodes)
                       .arg(spec.tasksPerNode)
                       .arg(methodDescription(spec));
    if (spec.container.runtime != ContainerRuntime::None)
        what += QStringLiteral(", in ") + containerRuntimeName(spec.container.runtime);
    out << what + u'.';
    out << QStringLiteral("# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.");
    return out.join(u'\n') + u'\n';
}

QString scriptBody(const JobSpec &spec, const ClusterCaps &caps)
{
    QStringList out;
    setup(out, spec, caps);
    environment(out, spec, caps);
    out << QString();
    launch(out, spec, caps);
    const bool waited = !effectiveCheckpointSignal(spec).isEmpty() || requeues(spec, caps);
    if (requeues(spec, caps))
        requeue(out, spec, caps);
    if (waited)
        out << QStringLiteral("exit \"$td_status\"");
    return out.join(u'\n') + u'\n';
}

QString logPathWord(const QString &pattern, const QString &jobName, const QString &jobIdExpression)
{
    QString word;
    QString literal;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern[i];
        const QChar next = i + 1 < pattern.size() ? pattern[i + 1] : QChar();
        if (c == u'%' && next == u'j') {
            if (!literal.isEmpty())
                word += shellQuote(literal);
            literal.clear();
            word += jobIdExpression;
            ++i;
        } else if (c == u'%' && (next == u'x' || next == u'%')) {
            literal += next == u'x' ? jobName : QStringLiteral("%");
            ++i;
        } else {
            literal += c;
        }
    }
    if (!literal.isEmpty() || word.isEmpty())
        word += shellQuote(literal);
    return word;
}

} // namespace torchdeck
