#pragma once
// Representative specs shared by the golden-file and JSON tests: the recipes of the seed tutorials
// (srun on one node, srun + a launcher per node with GPUs in a container, mpirun over PBS_NODEFILE, local).

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"

#include <QList>
#include <QMetaType>

namespace torchdeck::testing {

struct SampleSpec {
    const char *name; // the golden file: tests/data/jobs/<name>.sh
    JobSpec spec;
    ClusterCaps caps;
};

inline JobSpec cpuTrainer()
{
    JobSpec s;
    s.name = QStringLiteral("mnist-ae");
    s.nodes = 1;
    s.tasksPerNode = 2;
    s.cpusPerTask = 1;
    s.memory = QStringLiteral("4G");
    s.wallTimeSeconds = 30 * 60;
    s.partition = QStringLiteral("debug");
    s.workingDirectory = QStringLiteral("/home/ada/runs/mnist-ae");
    s.trainerPath = QStringLiteral("/home/ada/.local/share/torchdeck/trainer/3f9a1c/bin/torchdeck-train");
    s.trainerArgs = {QStringLiteral("--model"),          QStringLiteral("ae"),
                     QStringLiteral("--epochs"),         QStringLiteral("10"),
                     QStringLiteral("--metrics"),        QStringLiteral("metrics.jsonl"),
                     QStringLiteral("--checkpoint-dir"), QStringLiteral("checkpoints"),
                     QStringLiteral("--resume"),         QStringLiteral("auto")};
    s.signalLeadSeconds = 120;
    s.requeue = true;
    return s;
}

inline JobSpec gpuPerNode()
{
    JobSpec s;
    s.name = QStringLiteral("resnet50");
    s.nodes = 2;
    s.tasksPerNode = 4;
    s.gpusPerNode = 4;
    s.cpusPerTask = 8;
    s.memory = QStringLiteral("64g");
    s.wallTimeSeconds = 24 * 3600;
    s.partition = QStringLiteral("gpu");
    s.account = QStringLiteral("def-lab");
    s.modules = {QStringLiteral("StdEnv/2020"), QStringLiteral("cuda/11.7"), QStringLiteral("apptainer")};
    s.environment = {{QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("8")},
                     {QStringLiteral("NCCL_DEBUG"), QStringLiteral("WARN")}};
    s.workingDirectory = QStringLiteral("/scratch/ada/resnet50");
    s.launch = LaunchMethod::SrunPerNodeLauncher;
    s.container = {ContainerRuntime::Apptainer,
                   QStringLiteral("/project/images/torch-2.1.sif"),
                   {QStringLiteral("--bind"), QStringLiteral("/scratch")}};
    s.trainerPath = QStringLiteral("/project/torchdeck/trainer/bin/torchdeck-train");
    s.trainerArgs = {QStringLiteral("--model"),          QStringLiteral("resnet50"),
                     QStringLiteral("--data"),           QStringLiteral("synthetic:100000"),
                     QStringLiteral("--batch-size"),     QStringLiteral("256"),
                     QStringLiteral("--checkpoint-dir"), QStringLiteral("/scratch/ada/resnet50/ckpt")};
    s.outputPath = QStringLiteral("logs/%x-%j.out");
    s.requeue = true;
    s.maxRestarts = 5;
    s.dependencies = {{DependencyKind::AfterOk, {QStringLiteral("4242")}}};
    s.extraDirectives = {QStringLiteral("--exclusive")};
    return s;
}

inline JobSpec mpiGpu()
{
    JobSpec s = gpuPerNode();
    s.name = QStringLiteral("resnet50-mpi");
    s.launch = LaunchMethod::Mpirun;
    s.container = {};
    s.modules = {QStringLiteral("openmpi/4.1.4"), QStringLiteral("cuda/11.7")};
    s.partition = QStringLiteral("gpu_q");
    s.account = QStringLiteral("st-lab-1-gpu");
    s.outputPath = QString();
    s.dependencies = {{DependencyKind::AfterNotOk, {QStringLiteral("1234.pbsserver")}}};
    s.extraDirectives = {};
    s.requeue = true;
    s.maxRestarts = 2;
    return s;
}

inline JobSpec slurmMpi()
{
    JobSpec s = mpiGpu();
    s.partition = QStringLiteral("gpu");
    s.account = QStringLiteral("def-lab");
    s.dependencies = {{DependencyKind::AfterNotOk, {QStringLiteral("4242"), QStringLiteral("4243_7")}}};
    return s;
}

inline JobSpec torqueCpu()
{
    JobSpec s = cpuTrainer();
    s.name = QStringLiteral("mnist-torque");
    s.nodes = 2;
    s.tasksPerNode = 2;
    s.launch = LaunchMethod::Mpirun;
    s.mpiAllowRunAsRoot = true;
    s.launcherOptions = {QStringLiteral("--mca"), QStringLiteral("btl"), QStringLiteral("self,tcp")};
    s.partition = QString();
    s.errorPath = QStringLiteral("%x-%j.err");
    return s;
}

inline JobSpec customPerNode()
{
    JobSpec s;
    s.name = QStringLiteral("lightning");
    s.nodes = 2;
    s.tasksPerNode = 4;
    s.gpusPerNode = 4;
    s.cpusPerTask = 6;
    s.wallTimeSeconds = 2 * 3600;
    s.workingDirectory = QStringLiteral("/p/project/ada/lightning");
    s.launch = LaunchMethod::SrunPerNodeLauncher;
    s.commandKind = CommandKind::Custom;
    s.customCommand = QStringLiteral("source venv/bin/activate && exec python train.py --nodes \"$SLURM_NNODES\"");
    return s;
}

inline JobSpec plainCustom()
{
    JobSpec s;
    s.name = QStringLiteral("hello");
    s.gpusPerNode = 1;
    s.wallTimeSeconds = 10 * 60;
    s.commandKind = CommandKind::Custom;
    s.customCommand = QStringLiteral("nvidia-smi; python -c 'import torch; print(torch.cuda.is_available())'");
    s.checkpointSignalEnabled = false;
    return s;
}

inline JobSpec localTrainer()
{
    JobSpec s = cpuTrainer();
    s.name = QStringLiteral("mnist-local");
    s.launch = LaunchMethod::Local;
    s.workingDirectory = QStringLiteral("/home/ada/.local/state/torchdeck/runs/mnist-local");
    s.trainerPath = QStringLiteral("/home/ada/.local/share/torchdeck/trainer/3f9a1c/bin/torchdeck-train");
    return s;
}

inline JobSpec localMpirun()
{
    JobSpec s = localTrainer();
    s.name = QStringLiteral("mnist-local-mpi");
    s.launch = LaunchMethod::Mpirun;
    s.mpiAllowRunAsRoot = true;
    s.oversubscribe = true;
    s.environment = {{QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1")}};
    s.checkpointSignal = QStringLiteral("USR2");
    return s;
}

// Each rank bound to one GPU, srun starting the ranks: Slurm sets each its own CUDA_VISIBLE_DEVICES.
inline JobSpec gpuPerTask()
{
    JobSpec s = cpuTrainer();
    s.name = QStringLiteral("bound");
    s.tasksPerNode = 4;
    s.gpusPerTask = 1;
    s.gpuType = QStringLiteral("a100");
    s.partition = QStringLiteral("gpu");
    return s;
}

inline ClusterCaps slurmCaps()
{
    ClusterCaps caps;
    caps.partitions = {{QStringLiteral("debug"), 0, 2}, {QStringLiteral("gpu"), 4, 64}};
    caps.defaultPartition = QStringLiteral("debug");
    return caps;
}

inline ClusterCaps pbsCaps(PbsDialect dialect)
{
    ClusterCaps caps;
    caps.scheduler = SchedulerKind::Pbs;
    caps.pbsDialect = dialect;
    return caps;
}

inline QList<SampleSpec> sampleSpecs()
{
    ClusterCaps gres = slurmCaps();
    gres.gpuRequest = GpuRequestStyle::Gres;
    gres.partitions.clear();
    ClusterCaps local;
    local.scheduler = SchedulerKind::Local;
    return {
        {"slurm-srun-cpu", cpuTrainer(), slurmCaps()},
        {"slurm-per-node-apptainer", gpuPerNode(), slurmCaps()},
        {"slurm-mpirun-gpu", slurmMpi(), ClusterCaps()},
        {"slurm-srun-gpu-per-task", gpuPerTask(), slurmCaps()},
        {"slurm-torchrun-custom", customPerNode(), ClusterCaps()},
        {"slurm-plain-gres", plainCustom(), gres},
        {"pbspro-mpirun-gpu", mpiGpu(), pbsCaps(PbsDialect::PbsPro)},
        {"torque-mpirun-cpu", torqueCpu(), pbsCaps(PbsDialect::Torque)},
        {"local-trainer", localTrainer(), local},
        {"local-mpirun", localMpirun(), local},
    };
}

} // namespace torchdeck::testing

Q_DECLARE_METATYPE(torchdeck::JobSpec)
Q_DECLARE_METATYPE(torchdeck::ClusterCaps)
