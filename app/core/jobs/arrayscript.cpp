#include "core/jobs/arrayscript.h"

#include "core/coretr.h"
#include "core/shellquote.h"

namespace torchdeck {

namespace {

constexpr QStringView slurmPrefix = u"#SBATCH ";
constexpr QStringView pbsPrefix = u"#PBS ";

bool isDirective(const QString &line)
{
    return line.startsWith(slurmPrefix) || line.startsWith(pbsPrefix);
}

// The directives every task has its own of: the name and the logs.
bool namesOrLogs(const QString &line)
{
    static const QStringList own{QStringLiteral("#SBATCH --job-name="),
                                 QStringLiteral("#SBATCH --output="),
                                 QStringLiteral("#SBATCH --error="),
                                 QStringLiteral("#PBS -N "),
                                 QStringLiteral("#PBS -o "),
                                 QStringLiteral("#PBS -e ")};
    for (const QString &prefix : own) {
        if (line.startsWith(prefix))
            return true;
    }
    return false;
}

QString directiveValue(const QString &script, const QString &prefix)
{
    for (const QString &line : script.split(u'\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size());
    }
    return {};
}

// A task's log pattern relative to its run directory, with Slurm's %j (a task's own job id) as the array's
// "%A_%a" that the task's recorded id is; empty when the log is elsewhere or named by the job's name.
QString relativeLogPattern(const QString &path, const QString &runDirectory)
{
    if (!path.startsWith(runDirectory + u'/'))
        return {};
    const QString relative = path.mid(runDirectory.size() + 1);
    QString out;
    for (qsizetype i = 0; i < relative.size(); ++i) {
        if (relative[i] != u'%' || i + 1 == relative.size()) {
            out += relative[i];
            continue;
        }
        const QChar next = relative[++i];
        if (next == u'j')
            out += QStringLiteral("%A_%a");
        else if (next == u'%')
            out += QStringLiteral("%%");
        else
            return {};
    }
    return out;
}

// The Slurm log directives of the array: each task's log under <arrayDirectory>/<i>, its run directory.
QStringList slurmLogDirectives(const QList<ArrayTask> &tasks, const QString &arrayDirectory, QString *error)
{
    QStringList directives;
    for (const QString &option : {QStringLiteral("--output="), QStringLiteral("--error=")}) {
        const QString prefix = QStringLiteral("#SBATCH ") + option;
        QString pattern;
        for (const ArrayTask &task : tasks) {
            const QString path = directiveValue(task.script, prefix);
            const QString relative = relativeLogPattern(path, task.runDirectory);
            if ((path.isEmpty() && !pattern.isEmpty()) || (!path.isEmpty() && relative.isEmpty()) ||
                (&task != &tasks.constFirst() && relative != pattern)) {
                *error = core::Tr::tr("the runs' logs (%1) are not each in its run directory under the same name")
                             .arg(option.chopped(1));
                return {};
            }
            pattern = relative;
        }
        if (!pattern.isEmpty())
            directives.append(prefix + arrayDirectory + QStringLiteral("/%a/") + pattern);
    }
    return directives;
}

QString rangeDirective(const ClusterCaps &caps, qsizetype count, int maxRunning)
{
    const QString range = QStringLiteral("0-%1").arg(count - 1);
    const QString limit = maxRunning > 0 ? QStringLiteral("%%1").arg(maxRunning) : QString();
    if (caps.scheduler == SchedulerKind::Slurm)
        return QStringLiteral("#SBATCH --array=") + range + limit;
    if (caps.pbsDialect == PbsDialect::Torque)
        return QStringLiteral("#PBS -t ") + range + limit;
    QString directive = QStringLiteral("#PBS -J ") + range;
    if (maxRunning > 0)
        directive += QStringLiteral("\n#PBS -W max_run_subjobs=%1").arg(maxRunning);
    return directive;
}

QString nameDirective(const ClusterCaps &caps, const QString &name)
{
    return caps.scheduler == SchedulerKind::Slurm ? QStringLiteral("#SBATCH --job-name=") + name
                                                  : QStringLiteral("#PBS -N ") + name;
}

} // namespace

QStringList arrayShape(const QString &script)
{
    QStringList shape;
    for (const QString &line : script.split(u'\n')) {
        if (isDirective(line) && !namesOrLogs(line))
            shape.append(line);
    }
    return shape;
}

ArrayScript renderArrayScript(const ClusterCaps &caps, const QList<ArrayTask> &tasks, const QString &name,
                              const QString &arrayDirectory, const QString &scriptName, int maxRunning)
{
    ArrayScript result;
    if (tasks.size() < 2) {
        result.error = core::Tr::tr("a job array needs two runs or more");
        return result;
    }
    if (caps.scheduler != SchedulerKind::Slurm && caps.scheduler != SchedulerKind::Pbs) {
        result.error = core::Tr::tr("job arrays need Slurm or PBS");
        return result;
    }
    const QStringList shape = arrayShape(tasks.constFirst().script);
    for (const ArrayTask &task : tasks) {
        if (arrayShape(task.script) != shape) {
            result.error = core::Tr::tr("the runs ask for different resources");
            return result;
        }
    }
    QStringList directives{nameDirective(caps, name), rangeDirective(caps, tasks.size(), maxRunning)};
    if (caps.scheduler == SchedulerKind::Slurm) {
        directives += slurmLogDirectives(tasks, arrayDirectory, &result.error);
        if (!result.ok())
            return result;
    }
    directives += shape;
    const QString firstLine = tasks.constFirst().script.section(u'\n', 0, 0);
    const QString shell = firstLine.startsWith(u"#!") ? firstLine.mid(2).trimmed() : QStringLiteral("/bin/bash");
    QStringList lines{QStringLiteral("#!") + shell,
                      QStringLiteral("# torchdeck job array %1: %2 runs; task i runs the script in its run directory, "
                                     "as a job of that run alone would.")
                          .arg(name)
                          .arg(tasks.size())};
    lines += directives;
    lines << QString() << QStringLiteral("task=${SLURM_ARRAY_TASK_ID:-${PBS_ARRAY_INDEX:-${PBS_ARRAYID:-}}}")
          << QStringLiteral("case \"$task\" in");
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const QString directory = shellQuote(tasks.at(i).runDirectory);
        lines << QStringLiteral("%1) cd -- %2 && exec %3 %4 ;;")
                     .arg(i)
                     .arg(directory, shell, shellQuote(tasks.at(i).runDirectory + u'/' + scriptName));
    }
    lines << QStringLiteral("*) echo \"torchdeck: no run for array task '$task'\" >&2; exit 1 ;;")
          << QStringLiteral("esac");
    result.script = lines.join(u'\n') + u'\n';
    return result;
}

QString arrayLimitsCommand(SchedulerKind scheduler)
{
    if (scheduler == SchedulerKind::Slurm)
        return QStringLiteral("scontrol show config 2>/dev/null | sed -n 's/^MaxArraySize *= *//p'; echo @; "
                              "sacctmgr -nP show assoc where user=\"$(id -un)\" format=MaxSubmit 2>/dev/null | "
                              "sed -n '1p'; true");
    if (scheduler == SchedulerKind::Pbs)
        return QStringLiteral(
            "qmgr -c 'print server' 2>/dev/null | sed -n 's/.*max_\\(job_\\)\\{0,1\\}array_size = //p'; "
            "echo @; true");
    return QStringLiteral("echo @");
}

QString arrayLimitProblem(SchedulerKind scheduler, const QByteArray &limitsOutput, int tasks)
{
    const QString text = QString::fromUtf8(limitsOutput);
    bool known = false;
    const int largest = text.section(u'@', 0, 0).trimmed().section(u'\n', 0, 0).toInt(&known);
    // Slurm's indices stop below MaxArraySize; PBS's max_array_size counts the subjobs.
    if (known && largest > 0 && tasks > largest)
        return scheduler == SchedulerKind::Slurm
                   ? core::Tr::tr("the cluster's MaxArraySize is %1: an array of %2 tasks would be refused")
                         .arg(largest)
                         .arg(tasks)
                   : core::Tr::tr("the server's max_array_size is %1: an array of %2 subjobs would be refused")
                         .arg(largest)
                         .arg(tasks);
    return queueLimitProblem(limitsOutput, tasks);
}

QString queueLimitProblem(const QByteArray &limitsOutput, int jobs)
{
    bool known = false;
    const int most = QString::fromUtf8(limitsOutput).section(u'@', 1).trimmed().section(u'\n', 0, 0).toInt(&known);
    if (known && most > 0 && jobs > most)
        return core::Tr::tr("your account may have %1 jobs in the queue at once (MaxSubmitJobs), and these are %2")
            .arg(most)
            .arg(jobs);
    return {};
}

QString arrayTaskJobId(SchedulerKind scheduler, const QString &arrayJobId, int index)
{
    if (scheduler == SchedulerKind::Pbs) {
        const qsizetype open = arrayJobId.indexOf(QStringLiteral("[]"));
        if (open >= 0)
            return arrayJobId.left(open) + QStringLiteral("[%1]").arg(index) + arrayJobId.mid(open + 2);
        const qsizetype dot = arrayJobId.indexOf(u'.');
        const QString task = QStringLiteral("[%1]").arg(index);
        return dot < 0 ? QString(arrayJobId + task) : QString(arrayJobId.left(dot) + task + arrayJobId.mid(dot));
    }
    return arrayJobId + QStringLiteral("_%1").arg(index);
}

QString arrayJobIdOf(SchedulerKind scheduler, const QString &jobId)
{
    if (scheduler != SchedulerKind::Pbs)
        return jobId.section(u'_', 0, 0);
    const qsizetype open = jobId.indexOf(u'[');
    const qsizetype close = jobId.indexOf(u']', open);
    return open < 0 || close < 0 ? jobId : jobId.left(open + 1) + jobId.mid(close);
}

} // namespace torchdeck
