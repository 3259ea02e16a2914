#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// How the ranks are started inside the allocation (see docs/job-scripts.md).
enum class LaunchMethod {
    Srun,                // srun starts one task per rank
    SrunPerNodeLauncher, // srun starts one task per node; it starts the node's ranks (trainer
                         // --nproc-per-node)
    Mpirun,              // one Open MPI mpirun for all nodes
    Local,               // the command runs once, directly, on the first node (or the local machine)
};

enum class ContainerRuntime { None, Apptainer, Singularity, Shifter };

struct ContainerSpec {
    ContainerRuntime runtime = ContainerRuntime::None;
    QString image;       // apptainer/singularity: a .sif path or URI; shifter: the image name
    QStringList options; // extra words before the image, e.g. --bind /scratch (--nv is added for GPU jobs)
};
bool operator==(const ContainerSpec &a, const ContainerSpec &b);

enum class CommandKind {
    Trainer, // the bundled torchdeck-train: trainerPath + trainerArgs, each argument quoted
    Custom,  // a shell command line written by the user, run as-is by `bash -c` on every rank
};

enum class DependencyKind { After, AfterOk, AfterNotOk, AfterAny };

struct JobDependency {
    DependencyKind kind = DependencyKind::AfterOk;
    QStringList jobIds;
};
bool operator==(const JobDependency &a, const JobDependency &b);

struct EnvironmentVariable {
    QString name;  // a shell identifier
    QString value; // literal: quoted, never expanded
};
bool operator==(const EnvironmentVariable &a, const EnvironmentVariable &b);

// A custom command's variant for one cluster (`--command-on CLUSTER=CMD`): a run offered to several clusters, or
// continued on another, runs it there instead of the default command.
struct ClusterCommand {
    QString cluster;
    QString command;
};
bool operator==(const ClusterCommand &a, const ClusterCommand &b);

// The exit code of torchdeck-train after a signal-triggered checkpoint (EX_TEMPFAIL, docs/trainer.md).
constexpr int kTrainerRequeueExitCode = 75;
constexpr int kDefaultSignalLeadSeconds = 300;

// One job as the user described it: what to run, on what, for how long. Rendered to a script by
// renderSlurmScript / renderPbsScript / renderLocalScript after validateJobSpec.
struct JobSpec {
    QString name;
    int nodes = 1;
    int tasksPerNode = 1; // ranks per node
    int gpusPerNode = 0;
    int gpusPerTask = 0; // Slurm's --gpus-per-task: each rank bound to its own GPUs (CUDA_VISIBLE_DEVICES)
    QString gpuType;     // Slurm's GRES type ("a100"); empty: any
    int cpusPerTask = 1;
    QString memory;             // per node, Slurm units: "16G", "500M", "16000" (MB); empty: scheduler default
    qint64 wallTimeSeconds = 0; // 0: the partition's default
    QString partition;          // Slurm partition or PBS queue; empty: default
    QString account;
    QStringList modules;                    // `module load` each, in order
    QList<EnvironmentVariable> environment; // exported in order
    QString workingDirectory;               // absolute; empty: where the job starts (submission dir; PBS_O_WORKDIR)

    LaunchMethod launch = LaunchMethod::Srun;
    QStringList launcherOptions; // extra words for srun/mpirun, e.g. --mca btl self,tcp
    bool mpiAllowRunAsRoot = false;
    bool oversubscribe = false; // force mpirun --oversubscribe / srun --overcommit
    ContainerSpec container;

    CommandKind commandKind = CommandKind::Trainer;
    QString trainerPath = QStringLiteral("torchdeck-train");
    QStringList trainerArgs;
    QString customCommand;
    QList<ClusterCommand> commandOn;                      // per-cluster variants of customCommand, applied on rendering
    QString perNodeLauncher = QStringLiteral("torchrun"); // custom command + SrunPerNodeLauncher
    QStringList logPatterns; // custom command: regexes whose named groups turn its log lines into metrics
    // Custom command: a local project folder uploaded as a snapshot (core/code); the command runs in the run's
    // copy of it, <run directory>/code. codeSnapshot is the uploaded snapshot's id, kept so a resume runs the
    // same code; set at submission.
    QString codeDirectory;
    QString codeSnapshot;
    int masterPort = 0; // 0: 15000 + job id % 10000, the trainer's own default

    QString outputPath; // Slurm patterns %j (job id) and %x (name); PBS/local scripts expand those two
    QString errorPath;  // empty: joined with the output

    bool checkpointSignalEnabled = true;
    QString checkpointSignal;                          // USR1, USR2, TERM, ...; empty: defaultCheckpointSignal()
    int signalLeadSeconds = kDefaultSignalLeadSeconds; // before the wall time; 0: none asked of the scheduler
    bool requeue = false;                              // requeue in-job when the command exits with requeueExitCode
    int maxRestarts = 3;
    int requeueExitCode = kTrainerRequeueExitCode;
    // The stall alarm: seconds a running job may show no new events or log bytes; 0: from the run's own step
    // times (core/runs/stallcheck.h).
    int stallSeconds = 0;
    // A restart that has waited this long on its cluster moves to another of the run's candidate clusters (its
    // placement) where it would start sooner (`--move-after`); 0: never.
    int moveAfterSeconds = 0;
    // Where the job keeps its own record (core/jobs/jobtrace.h); set per attempt (attemptSpec). Empty: none.
    QString traceFile;

    QList<JobDependency> dependencies;
    QStringList extraDirectives; // raw "--exclusive" (prefixed with #SBATCH/#PBS) or whole "#SBATCH ..." lines

    int totalTasks() const { return nodes * tasksPerNode; }
    // The GPUs each node needs, asked for per node or per task.
    int gpusOnNode() const { return gpusPerTask > 0 ? gpusPerTask * tasksPerNode : gpusPerNode; }

    QJsonObject toJson() const;
    // Never crashes on any input; `error` names the first bad field.
    struct FromJson;
    static FromJson fromJson(const QJsonObject &object);
};
bool operator==(const JobSpec &a, const JobSpec &b);
inline bool operator!=(const JobSpec &a, const JobSpec &b)
{
    return !(a == b);
}

struct JobSpec::FromJson {
    JobSpec spec;
    QString error; // empty on success
    bool ok() const { return error.isEmpty(); }
};

// The keys of a job file (JobSpec JSON) that no JobSpec has, with their path ("container.imag"): fromJson passes over
// them, so a typo would go unnoticed.
QStringList unknownJobSpecKeys(const QJsonObject &object);

// USR2 when the job has GPUs (NCCL may use USR1 itself), else USR1, the signal most Slurm recipes and
// PyTorch Lightning's auto-requeue use. torchdeck-train stops on either.
QString defaultCheckpointSignal(const JobSpec &spec);
// The signal the job gets before its wall time: the spec's, upper case and without "SIG", or the default (INT
// under a per-node launcher, which passes it on to its workers); empty if disabled.
QString effectiveCheckpointSignal(const JobSpec &spec);
// A custom command started by one launcher per node (torchrun), which starts the node's ranks.
bool customUnderPerNodeLauncher(const JobSpec &spec);

// Log paths as written in the script: the spec's, or "<name>-%j.out"; a relative path is taken from the
// working directory (left relative without one). The error path is empty when stderr joins stdout.
QString effectiveOutputPath(const JobSpec &spec);
QString effectiveErrorPath(const JobSpec &spec);

// Replaces %j, %x and %% the way Slurm does for the two patterns torchdeck documents; tells the dashboard
// which file to tail once the job id is known.
QString expandLogPath(const QString &pattern, const QString &jobId, const QString &jobName);

QString launchMethodName(LaunchMethod method);
QString containerRuntimeName(ContainerRuntime runtime);
QString commandKindName(CommandKind kind);
QString dependencyKindName(DependencyKind kind);

} // namespace torchdeck
