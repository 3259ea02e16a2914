#include "term/commandtable.h"

#include "term/agentcommand.h"
#include "term/annotatecommands.h"
#include "term/cancelcommand.h"
#include "term/checkcommand.h"
#include "term/checkpointscommand.h"
#include "term/clusterscommand.h"
#include "term/codecommand.h"
#include "term/completioncommand.h"
#include "term/forwardcommand.h"
#include "term/logscommand.h"
#include "term/profilecommand.h"
#include "term/runfilescommands.h"
#include "term/runscommand.h"
#include "term/stackcommand.h"
#include "term/submitcommand.h"
#include "term/sweepcommand.h"
#include "term/termtr.h"
#include "term/watchcommand.h"

namespace torchdeck::term {

namespace {

OptionSpec flag(const char *name, const QString &help)
{
    return {QString::fromLatin1(name), {}, {}, help, Completion::None, {}, false};
}

OptionSpec aliased(const char *name, const char *alias, const QString &help)
{
    return {QString::fromLatin1(name), QString::fromLatin1(alias), {}, help, Completion::None, {}, false};
}

OptionSpec valued(const char *name, const char *value, const QString &help, Completion completion = Completion::None)
{
    return {QString::fromLatin1(name), {}, QString::fromLatin1(value), help, completion, {}, false};
}

OptionSpec choice(const char *name, const char *value, const QStringList &choices, const QString &help)
{
    return {QString::fromLatin1(name), {}, QString::fromLatin1(value), help, Completion::Choices, choices, false};
}

OptionSpec repeated(OptionSpec option)
{
    option.repeatable = true;
    return option;
}

OperandSpec operand(const char *name, Completion completion)
{
    return {QString::fromLatin1(name), completion, {}, false, false};
}

const QStringList schedulers = {QStringLiteral("slurm"), QStringLiteral("pbs"), QStringLiteral("local")};

OptionSpec jsonFlag()
{
    return flag("--json", Tr::tr("print JSON instead of text"));
}

OptionSpec offlineFlag()
{
    return flag("--offline", Tr::tr("show what the run store holds, without asking the cluster"));
}

QList<CommandSpec> buildCommands()
{
    const QString clusters = Tr::tr("Clusters");
    const QString runs = Tr::tr("Jobs and runs");
    const QString shell = Tr::tr("Shell");
    const OptionSpec schedulerOption = choice("--scheduler", "KIND", schedulers, Tr::tr("the cluster's scheduler"));
    const OptionSpec workDirOption =
        valued("--work-dir", "DIR", Tr::tr("where runs and the trainer live on the cluster (default ~/.torchdeck)"));
    const OptionSpec libtorchOption =
        valued("--libtorch", "PREFIX", Tr::tr("the cluster's LibTorch (its CMake prefix), or auto to look for it"));
    const OperandSpec cluster = operand("CLUSTER", Completion::Cluster);
    const OperandSpec run = operand("RUN", Completion::Run);
    OperandSpec runs1 = run;
    runs1.repeatable = true;
    OperandSpec watchRuns = runs1;
    watchRuns.optional = true;
    OperandSpec sweepOperand = operand("SWEEP", Completion::None);
    sweepOperand.optional = true;
    const OperandSpec noteText{QStringLiteral("TEXT"), Completion::None, {}, true, false};
    const OperandSpec tagNames{QStringLiteral("NAME"), Completion::None, {}, false, true};
    const OperandSpec newName{QStringLiteral("NAME"), Completion::None, {}, false, false};
    const OperandSpec runPath{QStringLiteral("PATH"), Completion::None, {}, true, false};
    const OperandSpec runFiles{QStringLiteral("FILE"), Completion::None, {}, true, true};
    OperandSpec localPort = operand("LOCAL_PORT", Completion::None);
    localPort.optional = true;
    OperandSpec onOff{
        QStringLiteral("on|off"), Completion::Choices, {QStringLiteral("on"), QStringLiteral("off")}, true, false};
    OperandSpec shellName{QStringLiteral("SHELL"),
                          Completion::Choices,
                          {QStringLiteral("bash"), QStringLiteral("zsh"), QStringLiteral("fish")},
                          false,
                          false};
    OperandSpec topic{QStringLiteral("COMMAND"), Completion::Choices, {}, true, false};
    OperandSpec agentAction{QStringLiteral("ACTION"),
                            Completion::Choices,
                            {QStringLiteral("status"), QStringLiteral("stop"), QStringLiteral("restart"),
                             QStringLiteral("on"), QStringLiteral("off")},
                            true,
                            false};
    OperandSpec valuesOf{QStringLiteral("WHAT"),
                         Completion::Choices,
                         {QStringLiteral("clusters"), QStringLiteral("runs"), QStringLiteral("commands")},
                         false,
                         false};

    QList<CommandSpec> commands = {
        {QStringLiteral("clusters"),
         clusters,
         {},
         Tr::tr("list the clusters of your ssh config (~/.ssh/config, or $TORCHDECK_SSH_CONFIG)"),
         {jsonFlag()}},
        {QStringLiteral("check"),
         clusters,
         {cluster},
         Tr::tr("connect and check everything a job needs, with the cluster's profile: quoting, SFTP, the scheduler's "
                "commands, cmake and a compiler, LibTorch, the work directory, and the PyTorch and torchrun users' "
                "scripts would get"),
         {schedulerOption, workDirOption, libtorchOption}},
        {QStringLiteral("profile"),
         clusters,
         {cluster},
         Tr::tr("show torchdeck's settings of a cluster, or change them"),
         {schedulerOption,
          choice("--pbs-dialect", "DIALECT", {QStringLiteral("pbspro"), QStringLiteral("torque")},
                 Tr::tr("which PBS the cluster runs")),
          choice("--slurm-history", "SOURCE",
                 {QStringLiteral("accounting"), QStringLiteral("completion-file"), QStringLiteral("controller")},
                 Tr::tr("where the states of ended Slurm jobs come from")),
          valued("--account", "A", Tr::tr("the account jobs are charged to")),
          valued("--partition", "P", Tr::tr("the partition (Slurm) jobs go to")),
          valued("--queue", "Q", Tr::tr("the queue (PBS) jobs go to; the same setting as --partition")),
          workDirOption,
          repeated(valued("--module", "M", Tr::tr("an environment module to load before building and running"))),
          flag("--no-modules", Tr::tr("forget the modules")),
          libtorchOption,
          valued("--trainer-binary", "PATH", Tr::tr("a trainer already built on the cluster, used instead of building"),
                 Completion::None),
          choice("--build-on", "WHERE", {QStringLiteral("login"), QStringLiteral("job")},
                 Tr::tr("build the trainer on the login node or in a short job")),
          valued("--build-cpus", "N", Tr::tr("cores for building the trainer")),
          valued("--wait-notice", "SECONDS",
                 Tr::tr("tell me of a job the scheduler keeps waiting longer than this (0: never; default 3600)")),
          valued("--min-poll", "SECONDS",
                 Tr::tr("ask the scheduler at most this often, whatever a front wishes (default 10)")),
          repeated(
              valued("--log-pattern", "REGEX",
                     Tr::tr("a pattern that turns the cluster's job log lines into metrics (docs/metrics-schema.md)"))),
          flag("--no-log-patterns", Tr::tr("forget the log patterns")),
          choice("--in-job-requeue", "ANSWER",
                 {QStringLiteral("unknown"), QStringLiteral("allowed"), QStringLiteral("refused")},
                 Tr::tr("whether jobs may requeue themselves there (torchdeck check finds out); new runs requeue "
                        "themselves where allowed, else the agent restarts them")),
          valued("--notify-command", "CMD",
                 Tr::tr("a shell command on this machine that gets each run's notice (completed, failed, restarted) "
                        "as JSON on stdin, e.g. to post it to a chat"),
                 Completion::None),
          repeated(
              valued("--reach", "CLUSTER=SSH-ARGS",
                     Tr::tr("`ssh SSH-ARGS` on this cluster's login node reaches CLUSTER's with the keys there: a run "
                            "continued here from CLUSTER copies its checkpoint straight from there"),
                     Completion::None)),
          flag("--no-reach", Tr::tr("forget every --reach")),
          flag("--reset", Tr::tr("back to the defaults")),
          jsonFlag()}},
        {QStringLiteral("script"),
         runs,
         {cluster},
         Tr::tr("print the job script a submission would send (CLUSTER A,B,...: each candidate's)"),
         {},
         true},
        {QStringLiteral("submit"),
         runs,
         {cluster},
         Tr::tr("deploy and build the trainer, submit the job, print the run and job id. CLUSTER may be A,B,...: "
                "each is asked when it would start the job, and the run goes where it starts soonest"),
         {jsonFlag(), flag("--edit", Tr::tr("change the script in $VISUAL/$EDITOR before it is submitted")),
          valued("--chain", "N", Tr::tr("submit N jobs up front, each after the one before fails"))},
         true},
        {QStringLiteral("sweep"),
         runs,
         {cluster},
         Tr::tr("one run per point of a grid (a scaling study, a learning-rate sweep), every point checked before "
                "anything is sent; the job options are every point's. Points of one shape go as one job array"),
         {repeated(valued("--vary", "NAME=V1,V2,...",
                          Tr::tr("a setting's values: a job option without its dashes (tasks-per-node, nodes), a "
                                 "trainer option (lr) or env:NAME; the grid is every combination"))),
          valued("--max-running", "N", Tr::tr("at most N points of the job array run at a time (Slurm's %N)")),
          flag("--no-array", Tr::tr("a job per point, even where one job array would do")),
          flag("--dry-run", Tr::tr("check every point and show the grid, submit nothing")), jsonFlag()},
         true},
        {QStringLiteral("sweeps"),
         runs,
         {sweepOperand},
         Tr::tr("the sweeps; with one, its table: per point nodes, ranks, seconds per epoch, speedup and efficiency "
                "against the fewest ranks, losses"),
         {jsonFlag(), flag("--markdown", Tr::tr("the table as Markdown")), flag("--csv", Tr::tr("the table as CSV")),
          flag("--cancel", Tr::tr("cancel every run of the sweep")),
          flag("--resume", Tr::tr("resume every run of the sweep that ended short of completing")),
          flag("--delete", Tr::tr("remove the ended sweep and its runs from this machine (their files stay)")),
          offlineFlag()}},
        {QStringLiteral("runs"),
         runs,
         {},
         Tr::tr("the runs, newest first"),
         {valued("--cluster", "C", Tr::tr("only this cluster's runs"), Completion::Cluster),
          repeated(valued("--tag", "NAME", Tr::tr("only the runs with this tag"))), jsonFlag(), offlineFlag()}},
        {QStringLiteral("status"), runs, {run}, Tr::tr("one run with all its jobs"), {jsonFlag(), offlineFlag()}},
        {QStringLiteral("logs"),
         runs,
         {run},
         Tr::tr("the job logs of a run"),
         {aliased("--follow", "-f", Tr::tr("follow until the job ends")),
          valued("--attempt", "N", Tr::tr("the log of the run's Nth job, from 0")),
          flag("--explain", Tr::tr("per line, which rule read it and what it gave"))}},
        {QStringLiteral("metrics"),
         runs,
         {run},
         Tr::tr("the epochs of a run"),
         {flag("--csv", Tr::tr("every step and epoch as CSV")), flag("--json", Tr::tr("every step and epoch as JSON")),
          offlineFlag()}},
        {QStringLiteral("cancel"),
         runs,
         {runs1},
         Tr::tr("cancel the runs' unfinished jobs (a sweep's id: all its runs)"),
         {}},
        {QStringLiteral("checkpoints"),
         runs,
         {run},
         Tr::tr("the run's checkpoints, the latest and the best marked"),
         {jsonFlag(), repeated(valued("--delete", "STEP|FILE", Tr::tr("delete a checkpoint (never the latest)")))}},
        {QStringLiteral("files"),
         runs,
         {run, runPath},
         Tr::tr("the run's files on the cluster (size, time, the attempt that wrote them; the latest and best "
                "checkpoint marked); nothing outside its directory"),
         {valued("--on", "CLUSTER",
                 Tr::tr("a cluster the run ran on before it went on elsewhere (its directory there)"),
                 Completion::Cluster),
          jsonFlag()}},
        {QStringLiteral("pull"),
         runs,
         {run, runFiles},
         Tr::tr("copy files of the run to this machine, checked by size and SHA-256 (an interrupted pull goes on "
                "where it stopped)"),
         {valued("--checkpoint", "latest|best|STEP",
                 Tr::tr("the run's checkpoint, beside or instead of files (with --on, that cluster's latest or best)")),
          valued("--on", "CLUSTER", Tr::tr("a cluster the run ran on before it went on elsewhere (its files there)"),
                 Completion::Cluster),
          valued("--to", "DIR", Tr::tr("where to put them (default: here)"), Completion::File), jsonFlag()}},
        {QStringLiteral("shell"),
         runs,
         {run},
         Tr::tr("a login shell inside the run's running job, on its node (srun --overlap --pty), through the agent's "
                "connection; with --command one command, its output and exit code as this command's"),
         {valued("--node", "NODE", Tr::tr("one of the job's nodes (default: its first)")),
          valued("--command", "CMD", Tr::tr("run this command (bash -l) instead of a shell"))}},
        {QStringLiteral("delete"),
         runs,
         {runs1},
         Tr::tr("remove ended runs from this machine's records (refused while a job of one goes on)"),
         {flag("--remote", Tr::tr("remove their directories on the cluster too")),
          flag("--dry-run", Tr::tr("say what would go, and how big it is; remove nothing")),
          flag("--yes", Tr::tr("on a terminal, remove without asking first")), jsonFlag()}},
        {QStringLiteral("note"),
         runs,
         {run, noteText},
         Tr::tr("what the run was for, kept with it (\"\" clears it; without TEXT: print it)"),
         {}},
        {QStringLiteral("tag"),
         runs,
         {run, tagNames},
         Tr::tr("tags of the run, or of every run of a sweep; runs --tag NAME finds them"),
         {flag("--remove", Tr::tr("remove these tags instead"))}},
        {QStringLiteral("rename"), runs, {run, newName}, Tr::tr("call the run by another name"), {}},
        {QStringLiteral("auto-restart"),
         runs,
         {run, onOff},
         Tr::tr("whether a job that stops at its wall time or is preempted is restarted from its checkpoint by "
                "torchdeck (watch, the window, any refreshing command)"),
         {}},
        {QStringLiteral("resume"),
         runs,
         {run},
         Tr::tr("a new job continuing the run from its latest checkpoint"),
         {valued("--from", "STEP|FILE", Tr::tr("the checkpoint to continue from; an older one branches the run")),
          valued("--epochs", "N", Tr::tr("train up to N epochs in all")),
          valued("--on", "CLUSTER",
                 Tr::tr("continue on another cluster: the checkpoint is copied there through this machine and checked"),
                 Completion::Cluster),
          jsonFlag()}},
        {QStringLiteral("stack"),
         runs,
         {run},
         Tr::tr("the stacks of every process of the run's running job (py-spy or gdb on its nodes), kept with "
                "the run: for a run that stalls"),
         {}},
        {QStringLiteral("forward"),
         runs,
         {run, operand("REMOTE_PORT", Completion::None), localPort},
         Tr::tr("forward localhost:LOCAL_PORT (a free one if not given) to REMOTE_PORT on the run's first node, over "
                "the cluster's connection; the agent keeps it until stopped"),
         {flag("--list", Tr::tr("the forwards the agent keeps")),
          valued("--stop", "RUN|LOCAL_PORT", Tr::tr("stop the run's forwards, or the one of that local port"),
                 Completion::Run),
          jsonFlag()}},
        {QStringLiteral("code"),
         runs,
         {cluster},
         Tr::tr("the code snapshots (submit --code) kept on the cluster and the runs using them"),
         {flag("--prune", Tr::tr("delete those no unfinished run uses")), jsonFlag()}},
        {QStringLiteral("watch"),
         runs,
         {watchRuns},
         Tr::tr("live dashboard: runs (a sweep's id: its runs), loss curve, epoch times, log; keys to select, cancel, "
                "resume, quit; plain lines when not on a terminal"),
         {valued("--interval", "SECONDS", Tr::tr("seconds between refreshes (at least 0.2)")),
          flag("--plain", Tr::tr("plain lines even on a terminal")),
          flag("--until-done", Tr::tr("quit when the runs have ended"))}},
        {QStringLiteral("agent"),
         clusters,
         {agentAction},
         Tr::tr("the background agent that holds one connection per cluster, polls, and restarts your runs with no "
                "window open (the fronts start it): status, stop, restart (ends one that does not answer), on or "
                "off to start it when you log in; without "
                "an action, run it in the foreground"),
         {jsonFlag(), valued("--idle-exit", "MINUTES",
                             Tr::tr("how long it stays with no front attached and no run unfinished (default 10)"))}},
        {QStringLiteral("completion"),
         shell,
         {shellName},
         Tr::tr("print the completion script of a shell (the packages install them)"),
         {}},
        {QStringLiteral("help"), shell, {topic}, Tr::tr("this help, or one command's"), {}},
        {QStringLiteral("manpage"), shell, {}, Tr::tr("print the man page (roff)"), {}, false, true},
        {QStringLiteral("__complete"),
         shell,
         {valuesOf},
         Tr::tr("the values completions offer: cluster names, run ids and names, commands"),
         {},
         false,
         true},
    };
    // The handlers, by name: the front dispatches through the table, so a listed command always runs.
    using Run = int (*)(const QStringList &, QTextStream &, QTextStream &);
    const std::pair<const char16_t *, Run> handlers[] = {
        {u"clusters", runClustersCommand},
        {u"check", runCheckCommand},
        {u"profile", runProfileCommand},
        {u"script", runScriptCommand},
        {u"submit", runSubmitCommand},
        {u"sweep", runSweepCommand},
        {u"sweeps", runSweepsCommand},
        {u"runs", runRunsCommand},
        {u"status", runStatusCommand},
        {u"logs", runLogsCommand},
        {u"metrics", runMetricsCommand},
        {u"cancel", runCancelCommand},
        {u"auto-restart", runAutoRestartCommand},
        {u"checkpoints", runCheckpointsCommand},
        {u"note", runNoteCommand},
        {u"tag", runTagCommand},
        {u"rename", runRenameCommand},
        {u"files", runFilesCommand},
        {u"pull", runPullCommand},
        {u"shell", runShellCommand},
        {u"delete", runDeleteCommand},
        {u"resume", runResumeCommand},
        {u"watch", runWatchCommand},
        {u"code", runCodeCommand},
        {u"forward", runForwardCommand},
        {u"stack", runStackCommand},
        {u"agent", runAgentCommand},
        {u"completion", runCompletionCommand},
        {u"manpage", runManPageCommand},
        {u"__complete", runCompleteValuesCommand},
    };
    for (CommandSpec &command : commands) {
        for (const auto &[name, handler] : handlers) {
            if (command.name == QStringView(name))
                command.run = handler;
        }
        if (command.name == u"help") {
            for (const CommandSpec &other : std::as_const(commands)) {
                if (!other.hidden && other.name != u"help")
                    command.operands.first().choices.append(other.name);
            }
        }
    }
    return commands;
}

QList<OptionSpec> buildJobOptions()
{
    return {
        valued("--job", "FILE", Tr::tr("a job file: the JSON a job template holds; the options below override it"),
               Completion::File),
        valued("--name", "NAME", Tr::tr("the run's name")),
        valued("--nodes", "N", Tr::tr("nodes")),
        valued("--tasks-per-node", "N", Tr::tr("ranks per node")),
        valued("--gpus-per-node", "N", Tr::tr("GPUs per node")),
        valued("--gpus-per-task", "N", Tr::tr("GPUs bound to each rank (Slurm's --gpus-per-task)")),
        valued("--gpu-type", "TYPE", Tr::tr("the GPUs' type as the cluster's GRES names it, like a100")),
        valued("--cpus-per-task", "N", Tr::tr("cores per rank")),
        valued("--mem", "SIZE", Tr::tr("memory per node, like 16G")),
        valued("--time", "TIME", Tr::tr("wall time, like 30, 01:30:00 or 1-12:00:00")),
        valued("--partition", "P", Tr::tr("the partition")),
        valued("--queue", "Q", Tr::tr("the queue (PBS); the same as --partition")),
        valued("--account", "A", Tr::tr("the account")),
        repeated(valued("--module", "M", Tr::tr("an environment module to load"))),
        repeated(valued("--env", "NAME=VALUE", Tr::tr("an environment variable of the job"))),
        choice("--launch", "METHOD",
               {QStringLiteral("srun"), QStringLiteral("srun-per-node"), QStringLiteral("mpirun"),
                QStringLiteral("local")},
               Tr::tr("how the ranks are started")),
        repeated(valued("--launcher-option", "X", Tr::tr("an option for the launcher"))),
        repeated(valued("--directive", "OPTION",
                        Tr::tr("a scheduler option of your own, as #SBATCH/#PBS writes it: --exclusive, "
                               "--begin=now+1hour, --constraint=a100"))),
        flag("--oversubscribe", Tr::tr("let mpirun place more ranks than cores")),
        flag("--mpi-allow-run-as-root", Tr::tr("mpirun as root (containers and test machines)")),
        valued("--container", "RUNTIME:IMAGE", Tr::tr("run in a container: apptainer, singularity or shifter")),
        valued("--workdir", "DIR", Tr::tr("the job's working directory")),
        choice("--signal", "SIGNAL",
               {QStringLiteral("USR1"), QStringLiteral("USR2"), QStringLiteral("TERM"), QStringLiteral("INT")},
               Tr::tr("the scheduler's warning signal before the wall time")),
        valued("--signal-lead", "SECONDS",
               Tr::tr("how long before the wall time the signal comes (default: a fifth of a short wall time, "
                      "at most 300)")),
        flag("--no-checkpoint-signal", Tr::tr("no warning signal")),
        flag("--requeue",
             Tr::tr("the job requeues itself after checkpointing on the signal (the default where torchdeck "
                    "check proved the cluster allows it)")),
        flag("--no-requeue", Tr::tr("the agent restarts the run from outside instead (a new job from the checkpoint)")),
        valued("--max-restarts", "N", Tr::tr("how often torchdeck restarts the run from its checkpoint")),
        valued("--stall-after", "SECONDS",
               Tr::tr("the stall alarm after this long without new events or log output (default: from the "
                      "run's own step times)")),
        valued("--move-after", "DURATION",
               Tr::tr("with several clusters (submit A,B): a restart that waits this long on its cluster moves to "
                      "another of them where it would start sooner (30m, 2h)")),
        valued("--master-port", "PORT", Tr::tr("the rendezvous port")),
        valued("--command", "CMD", Tr::tr("run your own command on every rank instead of the bundled trainer")),
        repeated(valued("--command-on", "CLUSTER=CMD",
                        Tr::tr("the command on that cluster instead of --command's (a run offered to several clusters, "
                               "or continued on another)"))),
        valued("--code", "DIR",
               Tr::tr("upload this project folder (git's files, or all but .torchdeckignore's) as a snapshot; the "
                      "command runs in the run's copy of it, and a resume runs the same code"),
               Completion::Directory),
        repeated(valued("--log-pattern", "REGEX",
                        Tr::tr("turns log lines into metrics: named groups epoch, epochs, step, loss, val_loss, "
                               "accuracy, lr, seconds (docs/metrics-schema.md)"))),
        valued("--per-node-launcher", "CMD",
               Tr::tr("the per-node launcher of --launch srun-per-node: 'torchrun' or 'python -m "
                      "torch.distributed.launch'")),
    };
}

QList<OptionSpec> buildTrainerOptions()
{
    return {
        choice("--model", "NAME",
               {QStringLiteral("ae"), QStringLiteral("toy"), QStringLiteral("toy-split"), QStringLiteral("resnet18"),
                QStringLiteral("resnet50")},
               Tr::tr("the model")),
        valued("--data", "SPEC", Tr::tr("fashion-mnist[:DIR], mnist:DIR or synthetic[:N]")),
        valued("--epochs", "N", Tr::tr("epochs")),
        valued("--batch-size", "N", Tr::tr("samples per rank and step")),
        valued("--lr", "X", Tr::tr("learning rate")),
        choice("--optimizer", "NAME", {QStringLiteral("adam"), QStringLiteral("sgd")}, Tr::tr("the optimizer")),
        valued("--momentum", "X", Tr::tr("SGD momentum")),
        valued("--weight-decay", "X", Tr::tr("L2 penalty")),
        valued("--seed", "N", Tr::tr("initialisation and shuffle seed")),
        valued("--checkpoint-every", "E", Tr::tr("epoch, or a number of steps")),
        valued("--keep", "K", Tr::tr("newest checkpoints kept, plus the best")),
        valued("--threads", "N", Tr::tr("threads per rank")),
        valued("--limit", "N", Tr::tr("the first N samples of each split")),
        valued("--log-every", "N", Tr::tr("steps between progress lines")),
        choice("--backend", "NAME",
               {QStringLiteral("auto"), QStringLiteral("gloo"), QStringLiteral("shm"), QStringLiteral("nccl")},
               Tr::tr("the process group")),
        choice("--amp", "TYPE", {QStringLiteral("bf16")}, Tr::tr("bf16 autocast")),
        valued("--bucket-mb", "X", Tr::tr("gradient bucket size")),
        choice("--device", "NAME", {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")},
               Tr::tr("where to train")),
        valued("--nproc-per-node", "N", Tr::tr("the trainer launches N workers per node")),
        flag("--channels-last", Tr::tr("channels_last memory format for the ResNets")),
        repeated(valued("--trainer-arg", "ARG", Tr::tr("any other trainer flag (docs/trainer.md)"))),
    };
}

} // namespace

const QList<CommandSpec> &commandSpecs()
{
    static const QList<CommandSpec> commands = buildCommands();
    return commands;
}

const CommandSpec *findCommand(QStringView name)
{
    for (const CommandSpec &command : commandSpecs()) {
        if (command.name == name)
            return &command;
    }
    return nullptr;
}

const QList<OptionSpec> &globalOptions()
{
    static const QList<OptionSpec> options = {
        aliased("--help", "-h", Tr::tr("show this help")),
        flag("--version", Tr::tr("show the version")),
    };
    return options;
}

const QList<OptionSpec> &jobOptionSpecs()
{
    static const QList<OptionSpec> options = buildJobOptions();
    return options;
}

const QList<OptionSpec> &trainerOptionSpecs()
{
    static const QList<OptionSpec> options = buildTrainerOptions();
    return options;
}

QList<OptionSpec> optionsOf(const CommandSpec &command)
{
    QList<OptionSpec> options = command.options;
    if (command.takesJobOptions)
        options << jobOptionSpecs() << trainerOptionSpecs();
    return options;
}

QString operandSynopsis(const CommandSpec &command)
{
    QStringList words;
    for (const OperandSpec &operand : command.operands) {
        const QString word = operand.name + (operand.repeatable ? QStringLiteral("...") : QString());
        words.append(operand.optional ? u'[' + word + u']' : word);
    }
    return words.join(u' ');
}

QString optionSynopsis(const OptionSpec &option)
{
    QString text = option.alias.isEmpty() ? option.name : option.alias + QStringLiteral(", ") + option.name;
    if (!option.value.isEmpty())
        text += u' ' + option.value;
    return text;
}

const QList<EnvironmentSpec> &environmentSpecs()
{
    static const QList<EnvironmentSpec> variables = {
        {QStringLiteral("TORCHDECK_SSH_CONFIG"),
         Tr::tr("the ssh config to read clusters from (default ~/.ssh/config)")},
        {QStringLiteral("TORCHDECK_DATA_DIR"), Tr::tr("where the run store lives (default ~/.local/share/torchdeck)")},
        {QStringLiteral("TORCHDECK_CONFIG_DIR"),
         Tr::tr("where cluster settings and job templates live (default ~/.config/torchdeck)")},
        {QStringLiteral("VISUAL, EDITOR"), Tr::tr("the editor of submit --edit")},
        {QStringLiteral("NO_COLOR"), Tr::tr("no colours in the terminal's output")},
    };
    return variables;
}

} // namespace torchdeck::term
