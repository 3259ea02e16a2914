#include "core/jobs/jobspecvalidation.h"

#include "core/code/coderemote.h"
#include "core/coretr.h"
#include "core/jobs/directivevalue.h"
#include "core/jobs/restartvalidation.h"
#include "core/jobs/trainerargs.h"
#include "core/jobs/walltime.h"
#include "core/metrics/logmetrics.h"

#include <QRegularExpression>
#include <QSet>
#include <optional>

namespace torchdeck {

namespace {

// Variables the shell owns: exporting them fails (read-only) or changes how the script itself runs.
const QSet<QString> &reservedVariables()
{
    static const QSet<QString> names{
        QStringLiteral("IFS"),      QStringLiteral("SHELLOPTS"),     QStringLiteral("BASHOPTS"),
        QStringLiteral("BASH_ENV"), QStringLiteral("ENV"),           QStringLiteral("PS4"),
        QStringLiteral("UID"),      QStringLiteral("EUID"),          QStringLiteral("PPID"),
        QStringLiteral("BASHPID"),  QStringLiteral("BASH_VERSINFO"), QStringLiteral("BASH_ARGV0")};
    return names;
}

class Checker {
public:
    Checker(const JobSpec &spec, const ClusterCaps &caps)
        : s(spec)
        , c(caps)
    {
    }

    QList<JobSpecError> run()
    {
        resources();
        placement();
        environment();
        command();
        logs();
        errors += restartProblems(s, c);
        scheduling();
        return errors;
    }

private:
    const JobSpec &s;
    const ClusterCaps &c;
    QList<JobSpecError> errors;
    bool nameOk = false;

    bool slurm() const { return c.scheduler == SchedulerKind::Slurm; }
    bool pbs() const { return c.scheduler == SchedulerKind::Pbs; }
    bool local() const { return c.scheduler == SchedulerKind::Local; }

    void add(const QString &field, const QString &message) { errors.append({field, message}); }

    // A value that goes on a #SBATCH/#PBS line, which no scheduler lets us quote.
    void directive(const QString &field, const QString &value, const QString &what)
    {
        if (const QString problem = directiveValueProblem(value, c.scheduler); !problem.isEmpty())
            add(field, what + u' ' + problem);
    }

    // A value quoted into the script body: anything but NUL, which no argv can carry.
    void bodyValue(const QString &field, const QString &value, const QString &what)
    {
        if (value.contains(QChar(0)))
            add(field, core::Tr::tr("%1 contains a NUL character").arg(what));
    }

    void resources()
    {
        static const QRegularExpression nameRe(QStringLiteral("\\A[A-Za-z][A-Za-z0-9._-]{0,63}\\z"));
        if (s.name.isEmpty())
            add(QStringLiteral("name"), core::Tr::tr("The job needs a name."));
        else if (!nameRe.match(s.name).hasMatch())
            add(QStringLiteral("name"),
                core::Tr::tr("The job name must start with a letter and hold only letters, digits, '.', '_' "
                             "and '-' (at most 64): schedulers differ on anything else."));
        else if (const QString p = directiveValueProblem(s.name, c.scheduler); !p.isEmpty())
            add(QStringLiteral("name"), core::Tr::tr("The job name %1").arg(p));
        else
            nameOk = true;
        if (s.nodes < 1)
            add(QStringLiteral("nodes"), core::Tr::tr("A job needs at least one node."));
        if (s.tasksPerNode < 1)
            add(QStringLiteral("tasksPerNode"), core::Tr::tr("A node needs at least one task (rank)."));
        if (s.cpusPerTask < 1)
            add(QStringLiteral("cpusPerTask"), core::Tr::tr("A task needs at least one CPU."));
        if (s.gpusPerNode < 0)
            add(QStringLiteral("gpusPerNode"), core::Tr::tr("The GPU count cannot be negative."));
        gpusPerTask();
        gpuType();
        if (!s.memory.isEmpty() && !memoryMiB(s.memory))
            add(QStringLiteral("memory"),
                core::Tr::tr("Memory per node is a number with an optional unit K, M, G or T (\"16G\"); "
                             "without a unit it is megabytes."));
        if (s.wallTimeSeconds < 0)
            add(QStringLiteral("wallTimeSeconds"), core::Tr::tr("The wall time cannot be negative."));
        partitionLimits();
        accountLimits();
    }

    // What the user's association and its default QOS allow, where accounting was read (sacctmgr).
    void accountLimits()
    {
        if (c.accounts.isEmpty() || local())
            return;
        const QString source = c.accountsSource.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(c.accountsSource);
        QStringList mine;
        for (const AccountAccess &a : c.accounts) {
            if (!mine.contains(a.account))
                mine.append(a.account);
        }
        QString account = s.account;
        if (account.isEmpty() && mine.size() == 1)
            account = mine.first(); // the only one: Slurm charges it
        if (account.isEmpty())
            return;
        if (!mine.contains(account)) {
            add(QStringLiteral("account"), core::Tr::tr("You have no association with account '%1'%2: yours are %3.")
                                               .arg(account, source, mine.join(QStringLiteral(", "))));
            return;
        }
        const QString partition = s.partition.isEmpty() ? c.defaultPartition : s.partition;
        const AccountAccess *association = nullptr;
        for (const AccountAccess &a : c.accounts) {
            if (a.account == account && a.partition == partition)
                association = &a; // its own line for the partition comes first
            else if (a.account == account && a.partition.isEmpty() && !association)
                association = &a;
        }
        if (!association) {
            add(QStringLiteral("account"),
                core::Tr::tr("Account '%1' may not run on partition '%2'%3: Slurm would refuse it (\"Invalid account "
                             "or account/partition combination\").")
                    .arg(account, partition, source));
            return;
        }
        jobLimits(association->limits, core::Tr::tr("Account '%1'").arg(account), source);
        for (const QosLimits &q : c.qos) {
            if (q.name == association->defaultQos)
                jobLimits(q.limits, core::Tr::tr("QOS '%1'").arg(q.name), source);
        }
    }

    void jobLimits(const JobLimits &limits, const QString &who, const QString &source)
    {
        if (limits.maxWallSeconds > 0 && s.wallTimeSeconds > limits.maxWallSeconds)
            add(QStringLiteral("wallTimeSeconds"), core::Tr::tr("%1 allows at most %2 of wall time per job%3.")
                                                       .arg(who, formatPbsWallTime(limits.maxWallSeconds), source));
        if (limits.maxNodes >= 0 && s.nodes > limits.maxNodes)
            add(QStringLiteral("nodes"),
                core::Tr::tr("%1 allows at most %2 nodes per job%3.").arg(who).arg(limits.maxNodes).arg(source));
        const int gpus = s.nodes * s.gpusOnNode();
        if (limits.maxGpus >= 0 && gpus > limits.maxGpus)
            add(s.gpusPerTask > 0 ? QStringLiteral("gpusPerTask") : QStringLiteral("gpusPerNode"),
                core::Tr::tr("%1 allows at most %2 GPUs per job, not %3%4.")
                    .arg(who)
                    .arg(limits.maxGpus)
                    .arg(gpus)
                    .arg(source));
    }

    void gpuType()
    {
        static const QRegularExpression typeRe(QStringLiteral("\\A[A-Za-z0-9_.-]{1,64}\\z"));
        const QString field = QStringLiteral("gpuType");
        if (s.gpuType.isEmpty() || local())
            return;
        if (!typeRe.match(s.gpuType).hasMatch())
            add(field, core::Tr::tr("A GPU type holds only letters, digits, '.', '_' and '-' (\"a100\")."));
        else if (s.gpusOnNode() <= 0)
            add(field, core::Tr::tr("A GPU type needs GPUs: ask for GPUs per node or per task."));
        else if (c.scheduler == SchedulerKind::Pbs)
            add(field, core::Tr::tr("PBS sites name GPU types each their own way: leave the type empty and add "
                                    "the site's resource as an extra directive."));
        else if (const PartitionCaps *p = c.partition(s.partition);
                 p && !p->gpuTypes.isEmpty() && !p->gpuTypes.contains(s.gpuType))
            add(field, core::Tr::tr("Partition '%1' has no GPUs of type '%2': it has %3.")
                           .arg(p->name, s.gpuType, p->gpuTypes.join(QStringLiteral(", "))));
    }

    void gpusPerTask()
    {
        const QString field = QStringLiteral("gpusPerTask");
        if (s.gpusPerTask < 0)
            add(field, core::Tr::tr("The GPU count cannot be negative."));
        if (s.gpusPerTask <= 0 || local())
            return;
        if (s.gpusPerNode > 0)
            add(field, core::Tr::tr("Ask for GPUs per node or per task, not both."));
        else if (c.scheduler == SchedulerKind::Pbs)
            add(field, core::Tr::tr("PBS binds no GPUs to tasks: ask for GPUs per node."));
        else if (c.gpuRequest == GpuRequestStyle::Gres)
            add(field, core::Tr::tr("This cluster is asked for GPUs with --gres, which cannot bind them to tasks "
                                    "(--gpus-per-task needs Slurm's select/cons_tres): ask for GPUs per node."));
    }

    // What the partition allows, where it is known (`torchdeck check` read it): said with where it comes from.
    void partitionLimits()
    {
        const PartitionCaps *p = c.partition(s.partition);
        if (!p)
            return;
        const QString source =
            c.partitionsSource.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(c.partitionsSource);
        if (p->maxSeconds > 0 && s.wallTimeSeconds > p->maxSeconds)
            add(QStringLiteral("wallTimeSeconds"),
                core::Tr::tr("Partition '%1' allows at most %2 of wall time%3: ask for less, or choose another "
                             "partition.")
                    .arg(p->name, formatPbsWallTime(p->maxSeconds), source)); // HH:MM:SS
        if (p->nodes > 0 && s.nodes > p->nodes)
            add(QStringLiteral("nodes"), core::Tr::tr("Partition '%1' has only %2 nodes, not %3%4.")
                                             .arg(p->name)
                                             .arg(p->nodes)
                                             .arg(s.nodes)
                                             .arg(source));
        const qint64 memory = memoryMiB(s.memory).value_or(0); // unset or malformed: not this check's
        if (p->memoryMiB > 0 && memory > p->memoryMiB)
            add(QStringLiteral("memory"), core::Tr::tr("Partition '%1' has %2 MiB of memory per node, not %3 MiB%4.")
                                              .arg(p->name)
                                              .arg(p->memoryMiB)
                                              .arg(memory)
                                              .arg(source));
        const QString gpuField = s.gpusPerTask > 0 ? QStringLiteral("gpusPerTask") : QStringLiteral("gpusPerNode");
        if (s.gpusOnNode() > 0 && p->gpusPerNode == 0)
            add(gpuField, core::Tr::tr("Partition '%1' has no GPUs%2: choose a GPU partition or ask for none.")
                              .arg(p->name, source));
        else if (p->gpusPerNode > 0 && s.gpusOnNode() > p->gpusPerNode)
            add(gpuField, core::Tr::tr("Partition '%1' has %2 GPUs per node, not %3%4.")
                              .arg(p->name)
                              .arg(p->gpusPerNode)
                              .arg(s.gpusOnNode())
                              .arg(source));
    }

    // Slurm's memory words ("16G", "500M", "16000": MB) in MiB; none when malformed.
    static std::optional<qint64> memoryMiB(const QString &memory)
    {
        static const QRegularExpression re(QStringLiteral("\\A([0-9]{1,9})([KMGTkmgt]?)\\z"));
        const QRegularExpressionMatch m = re.match(memory);
        if (!m.hasMatch())
            return std::nullopt;
        const qint64 n = m.captured(1).toLongLong();
        const QString unit = m.captured(2).toUpper();
        if (unit == u"K")
            return (n + 1023) / 1024;
        if (unit == u"G")
            return n * 1024;
        if (unit == u"T")
            return n * 1024 * 1024;
        return n;
    }

    void placement()
    {
        static const QRegularExpression nameRe(QStringLiteral("\\A[A-Za-z0-9._@-]+\\z"));
        if (!s.partition.isEmpty() && !local() && !nameRe.match(s.partition).hasMatch())
            add(QStringLiteral("partition"),
                core::Tr::tr("A partition or queue name holds only letters, digits, '.', '_', '@' and '-'."));
        if (!s.account.isEmpty() && !local() && !nameRe.match(s.account).hasMatch())
            add(QStringLiteral("account"),
                core::Tr::tr("An account name holds only letters, digits, '.', '_', '@' and '-'."));
        if (!s.workingDirectory.isEmpty() && !s.workingDirectory.startsWith(u'/'))
            add(QStringLiteral("workingDirectory"),
                core::Tr::tr("The working directory must be an absolute path (it is resolved on the "
                             "cluster, where the dashboard's current directory means nothing)."));
        bodyValue(QStringLiteral("workingDirectory"), s.workingDirectory, core::Tr::tr("The working directory"));
        for (qsizetype i = 0; i < s.modules.size(); ++i) {
            if (s.modules[i].trimmed().isEmpty())
                add(QStringLiteral("modules[%1]").arg(i), core::Tr::tr("A module name cannot be empty."));
            bodyValue(QStringLiteral("modules[%1]").arg(i), s.modules[i], core::Tr::tr("The module name"));
        }
    }

    void environment()
    {
        static const QRegularExpression identRe(QStringLiteral("\\A[A-Za-z_][A-Za-z0-9_]*\\z"));
        QSet<QString> seen;
        for (qsizetype i = 0; i < s.environment.size(); ++i) {
            const EnvironmentVariable &var = s.environment[i];
            const QString field = QStringLiteral("environment[%1].name").arg(i);
            if (!identRe.match(var.name).hasMatch())
                add(field, core::Tr::tr("'%1' is not a variable name: letters, digits and '_', not starting "
                                        "with a digit.")
                               .arg(var.name));
            else if (reservedVariables().contains(var.name) || var.name.startsWith(u"td_"))
                add(field, core::Tr::tr("%1 belongs to the shell or to the script itself.").arg(var.name));
            else if (seen.contains(var.name))
                add(field, core::Tr::tr("%1 is set twice.").arg(var.name));
            seen.insert(var.name);
            bodyValue(QStringLiteral("environment[%1].value").arg(i), var.value, core::Tr::tr("The value"));
        }
    }

    void code()
    {
        const bool usesCode = !s.codeDirectory.isEmpty() || !s.codeSnapshot.isEmpty();
        if (usesCode && s.commandKind != CommandKind::Custom)
            add(QStringLiteral("code"), core::Tr::tr("A code folder is for your own command (--command): torchdeck "
                                                     "deploys the bundled trainer itself."));
        if (!s.codeSnapshot.isEmpty() && !isCodeSnapshotId(s.codeSnapshot))
            add(QStringLiteral("codeSnapshot"), core::Tr::tr("Not a code snapshot id: %1.").arg(s.codeSnapshot));
        // attemptSpec() makes the run's copy of the code the working directory.
        static const QRegularExpression runCopy(QStringLiteral("/runs/[^/]+/") + kRunCodeFolder + u'$');
        if (usesCode && !s.workingDirectory.isEmpty() && !runCopy.match(s.workingDirectory).hasMatch())
            add(QStringLiteral("workingDirectory"), core::Tr::tr("The command runs in the run's copy of the code "
                                                                 "folder: leave the working directory out."));
    }

    void command()
    {
        const bool srunMethod = s.launch == LaunchMethod::Srun || s.launch == LaunchMethod::SrunPerNodeLauncher;
        if (srunMethod && !slurm())
            add(QStringLiteral("launch"),
                core::Tr::tr("%1 needs Slurm; on PBS or locally use mpirun or local.").arg(launchMethodName(s.launch)));
        if (s.launch == LaunchMethod::Local && s.nodes > 1)
            add(QStringLiteral("launch"), core::Tr::tr("The local method runs on one node; ask for one node."));
        if (local() && s.nodes > 1)
            add(QStringLiteral("nodes"), core::Tr::tr("A local job runs on this one machine: one node."));
        if (s.commandKind == CommandKind::Trainer && s.trainerPath.isEmpty())
            add(QStringLiteral("trainerPath"), core::Tr::tr("The trainer's path on the cluster is not known."));
        if (s.commandKind == CommandKind::Trainer)
            if (const QString problem = bundledTrainerArgsProblem(s.trainerArgs); !problem.isEmpty())
                add(QStringLiteral("trainerArgs"), core::Tr::tr("The trainer would refuse it: %1").arg(problem));
        if (s.commandKind == CommandKind::Custom && s.customCommand.trimmed().isEmpty())
            add(QStringLiteral("customCommand"), core::Tr::tr("The custom command is empty."));
        for (const ClusterCommand &variant : s.commandOn) {
            if (s.commandKind != CommandKind::Custom)
                add(QStringLiteral("commandOn"),
                    core::Tr::tr("A command for %1 needs a command of your own (--command) for the other clusters.")
                        .arg(variant.cluster));
            else if (variant.cluster.trimmed().isEmpty() || variant.command.trimmed().isEmpty())
                add(QStringLiteral("commandOn"), core::Tr::tr("A per-cluster command needs a cluster and a command."));
            bodyValue(QStringLiteral("commandOn"), variant.command, core::Tr::tr("The command"));
        }
        for (qsizetype i = 0; i < s.logPatterns.size(); ++i) {
            if (const QString problem = userLogPatternProblem({s.logPatterns[i]}); !problem.isEmpty())
                add(QStringLiteral("logPatterns[%1]").arg(i), problem);
        }
        code();
        if (customUnderPerNodeLauncher(s) && s.perNodeLauncher.isEmpty())
            add(QStringLiteral("perNodeLauncher"), core::Tr::tr("A per-node launcher (torchrun) is needed."));
        bodyValue(QStringLiteral("trainerPath"), s.trainerPath, core::Tr::tr("The trainer path"));
        bodyValue(QStringLiteral("customCommand"), s.customCommand, core::Tr::tr("The command"));
        bodyValue(QStringLiteral("perNodeLauncher"), s.perNodeLauncher, core::Tr::tr("The launcher"));
        for (const QString &arg : s.trainerArgs)
            bodyValue(QStringLiteral("trainerArgs"), arg, core::Tr::tr("An argument"));
        for (const QString &arg : s.launcherOptions)
            bodyValue(QStringLiteral("launcherOptions"), arg, core::Tr::tr("An option"));
        for (const QString &arg : s.container.options)
            bodyValue(QStringLiteral("container.options"), arg, core::Tr::tr("An option"));
        if (s.container.runtime != ContainerRuntime::None && s.container.image.isEmpty())
            add(QStringLiteral("container.image"), core::Tr::tr("The container needs an image."));
        bodyValue(QStringLiteral("container.image"), s.container.image, core::Tr::tr("The image"));
        if (s.masterPort < 0 || s.masterPort > 65535)
            add(QStringLiteral("masterPort"), core::Tr::tr("A port is from 1 to 65535 (0: derived from the job id)."));
    }

    void logPath(const QString &field, const QString &path)
    {
        if (path.isEmpty())
            return;
        if (const QString problem = logPatternProblem(path); !problem.isEmpty())
            add(field, problem);
        else if (slurm())
            directive(field, path, core::Tr::tr("The log path"));
        else
            bodyValue(field, path, core::Tr::tr("The log path"));
    }

    void logs()
    {
        if (nameOk || !s.outputPath.isEmpty()) // the default holds the name, already reported
            logPath(QStringLiteral("outputPath"), effectiveOutputPath(s));
        logPath(QStringLiteral("errorPath"), effectiveErrorPath(s));
    }

    void scheduling()
    {
        static const QRegularExpression slurmId(QStringLiteral("\\A[0-9]+(_[0-9]+)?\\z"));
        static const QRegularExpression pbsId(QStringLiteral("\\A[0-9]+(\\[[0-9]*\\])?(\\.[A-Za-z0-9.-]+)?\\z"));
        for (qsizetype i = 0; i < s.dependencies.size(); ++i) {
            const QString field = QStringLiteral("dependencies[%1].jobIds").arg(i);
            if (local()) {
                add(field, core::Tr::tr("Dependencies need a scheduler."));
                break;
            }
            if (s.dependencies[i].jobIds.isEmpty())
                add(field, core::Tr::tr("A dependency needs at least one job id."));
            for (const QString &id : s.dependencies[i].jobIds) {
                if (!(slurm() ? slurmId : pbsId).match(id).hasMatch())
                    add(field, core::Tr::tr("'%1' is not a job id.").arg(id));
            }
        }
        for (qsizetype i = 0; i < s.extraDirectives.size(); ++i) {
            const QString field = QStringLiteral("extraDirectives[%1]").arg(i);
            if (const QString problem = rawDirectiveProblem(s.extraDirectives[i], c.scheduler); !problem.isEmpty())
                add(field, problem);
        }
    }
};

} // namespace

bool operator==(const JobSpecError &a, const JobSpecError &b)
{
    return a.field == b.field && a.message == b.message;
}

QList<JobSpecError> validateJobSpec(const JobSpec &spec, const ClusterCaps &caps)
{
    return Checker(spec, caps).run();
}

QString formatJobSpecErrors(const QList<JobSpecError> &errors)
{
    QStringList lines;
    for (const JobSpecError &e : errors)
        lines.append(e.field + QStringLiteral(": ") + e.message);
    return lines.join(u'\n');
}

QString describeJobSpecErrors(const QList<JobSpecError> &errors)
{
    QStringList sentences;
    for (const JobSpecError &e : errors)
        sentences.append(e.message.simplified());
    return sentences.join(u' ');
}

} // namespace torchdeck
