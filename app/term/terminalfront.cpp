#include "term/terminalfront.h"

#include "term/checkcommand.h"
#include "term/clusterscommand.h"
#include "term/codecommand.h"
#include "term/joboptions.h"
#include "term/logscommand.h"
#include "term/profilecommand.h"
#include "term/runactions.h"
#include "term/runscommand.h"
#include "term/submitcommand.h"
#include "term/watchcommand.h"

#include <QTextStream>

namespace torchdeck::term {

namespace {

void printUsage(QTextStream &out)
{
    out << "Usage: torchdeck [COMMAND [OPTIONS]]\n"
           "\n"
           "Without a command, torchdeck opens the desktop dashboard.\n"
           "\n"
           "Clusters:\n"
           "  clusters [--json]       list the clusters of your ssh config (~/.ssh/config, or "
           "$TORCHDECK_SSH_CONFIG)\n"
           "  check CLUSTER           connect and check everything a job needs (with the cluster's profile): "
           "quoting,\n"
           "                          SFTP, scheduler commands, cmake and a compiler, LibTorch, the work "
           "directory,\n"
           "                          the PyTorch and torchrun users' scripts would get\n"
           "                          [--scheduler slurm|pbs|local] [--work-dir DIR] [--libtorch PREFIX]\n"
           "  profile CLUSTER         show torchdeck's settings of a cluster, or change them:\n"
           "                          [--scheduler slurm|pbs|local] [--pbs-dialect pbspro|torque]\n"
           "                          [--slurm-history accounting|completion-file|controller] [--account A]\n"
           "                          [--partition P] [--work-dir DIR] [--module M]... [--no-modules]\n"
           "                          [--libtorch PREFIX|auto] [--trainer-binary PATH] [--build-on "
           "login|job]\n"
           "                          [--build-cpus N] [--log-pattern REGEX]... [--no-log-patterns] [--reset] "
           "[--json]\n"
           "\n"
           "Jobs and runs (RUN: a run id, its first characters, or its name):\n"
           "  script CLUSTER [JOB]    print the job script a submission would send\n"
           "  submit CLUSTER [JOB]    deploy and build the trainer, submit the job, print the run and job id "
           "[--json]\n"
           "                          [--edit: change the script in $VISUAL/$EDITOR before it is submitted]\n"
           "                          [--chain N: submit N jobs up front, each after the one before fails]\n"
           "  runs                    the runs, newest first [--cluster C] [--json] [--offline]\n"
           "  status RUN              one run with all its jobs [--json] [--offline]\n"
           "  logs RUN                the job logs of a run [-f: follow until the job ends] [--attempt N]\n"
           "  metrics RUN             epochs of a run [--csv|--json: every step and epoch] [--offline]\n"
           "  cancel RUN...           cancel the runs' unfinished jobs\n"
           "  checkpoints RUN         the run's checkpoints, the latest and the best marked [--json]\n"
           "                          [--delete STEP|FILE]... (never the latest)\n"
           "  auto-restart RUN [on|off]  whether a job that stops at its wall time or is preempted is restarted\n"
           "                          from its checkpoint by torchdeck (watch, the window, any refreshing command)\n"
           "  resume RUN              a new job continuing the run from its latest checkpoint\n"
           "                          [--from STEP|FILE] [--epochs N] [--json]\n"
           "  code CLUSTER            the code snapshots (submit --code) kept on the cluster and the runs using them\n"
           "                          [--prune: delete those no unfinished run uses] [--json]\n"
           "  watch [RUN...]          live dashboard: runs, loss curve, epoch times, log; keys to select, "
           "cancel,\n"
           "                          resume, quit; plain lines when not on a terminal\n"
           "                          [--interval SECONDS] [--plain] [--until-done: quit when the runs have "
           "ended]\n"
           "\n"
        << jobOptionsHelp()
        << "\n"
           "Options:\n"
           "  -h, --help              show this help\n"
           "  --version               show the version\n"
           "\n"
           "Exit codes: 0 success, 1 failure (the message says what to do), 2 bad command line.\n"
           "Files: runs in $TORCHDECK_DATA_DIR or ~/.local/share/torchdeck, cluster settings in\n"
           "$TORCHDECK_CONFIG_DIR or ~/.config/torchdeck.\n";
}

} // namespace

bool isTerminalInvocation(const QStringList &args)
{
    return !args.isEmpty();
}

int runTerminal(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString command = args.value(0);
    const QStringList rest = args.mid(1);
    if (command == u"-h" || command == u"--help" || command == u"help") {
        printUsage(out);
        return Ok;
    }
    if (command == u"--version") {
        out << "torchdeck " << TORCHDECK_VERSION << '\n';
        return Ok;
    }
    using Command = int (*)(const QStringList &, QTextStream &, QTextStream &);
    static const std::pair<const char16_t *, Command> commands[] = {
        {u"clusters", runClustersCommand},
        {u"check", runCheckCommand},
        {u"profile", runProfileCommand},
        {u"script", runScriptCommand},
        {u"submit", runSubmitCommand},
        {u"runs", runRunsCommand},
        {u"status", runStatusCommand},
        {u"logs", runLogsCommand},
        {u"metrics", runMetricsCommand},
        {u"cancel", runCancelCommand},
        {u"auto-restart", runAutoRestartCommand},
        {u"checkpoints", runCheckpointsCommand},
        {u"resume", runResumeCommand},
        {u"watch", runWatchCommand},
        {u"code", runCodeCommand},
    };
    for (const auto &[name, run] : commands) {
        if (command == QStringView(name))
            return run(rest, out, err);
    }
    err << "torchdeck: unknown command '" << command << "' (see torchdeck --help)\n";
    return UsageError;
}

} // namespace torchdeck::term
