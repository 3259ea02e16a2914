#include "core/scheduler/resourceprobe.h"

#include "core/coretr.h"
#include "core/scheduler/jobstep.h"
#include "core/scheduler/nodeaddress.h"
#include "core/scheduler/schedulertext.h"
#include "core/shellquote.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>

namespace torchdeck {

namespace {

constexpr int kProbeSeconds = 30; // a step that cannot start (a drained node) must not hang the sampler
constexpr double kBytesPerMiB = 1024.0 * 1024.0;

const char kGpuQuery[] = "nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total "
                         "--format=csv,noheader,nounits 2>/dev/null";

// Runs on each node of the job: "@node NAME CLK_TCK PAGESIZE UPTIME", "@gpu ..." per GPU, and per process of
// the job on this node "@pid PID rank=R procid=P | FIELDS" (FIELDS: /proc/PID/stat after the command name).
QString slurmNodeScript()
{
    return QStringLiteral("n=$SLURMD_NODENAME\n"
                          "echo \"@node $n $(getconf CLK_TCK) $(getconf PAGESIZE) $(cut -d' ' -f1 /proc/uptime)\"\n"
                          "if command -v nvidia-smi >/dev/null 2>&1; then %1 | sed 's/^/@gpu /'; fi\n")
               .arg(QLatin1StringView(kGpuQuery)) +
           jobProcessesScript() +
           QStringLiteral(
               "for f in $on; do\n"
               "  case \"$own\" in *\" $f \"*) continue;; esac\n"
               "  p=${f#/proc/}; p=${p%/environ}\n"
               "  r=$(tr '\\0' '\\n' <\"$f\" 2>/dev/null | sed -n 's/^RANK=/rank=/p;s/^SLURM_PROCID=/procid=/p' "
               "| tr '\\n' ' ')\n"
               "  st=$(sed 's/.*) //' \"/proc/$p/stat\" 2>/dev/null) && echo \"@pid $p $r| $st\"\n"
               "done\n"
               "exit 0\n");
}

double number(QStringView text)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    return ok ? value : kNoValue;
}

// PBS's sizes: "3276800kb", "12gb", "512b".
double pbsMiB(QString text)
{
    text = text.trimmed().toLower();
    static const QList<std::pair<QString, double>> units{{QStringLiteral("tb"), 1024.0 * 1024.0},
                                                         {QStringLiteral("gb"), 1024.0},
                                                         {QStringLiteral("mb"), 1.0},
                                                         {QStringLiteral("kb"), 1.0 / 1024.0},
                                                         {QStringLiteral("b"), 1.0 / kBytesPerMiB}};
    for (const auto &[unit, mib] : units) {
        if (text.endsWith(unit))
            return number(QStringView(text).chopped(unit.size())) * mib;
    }
    return number(text) / kBytesPerMiB;
}

struct NodeClock {
    double ticks = 100;
    double pageBytes = 4096;
    double uptime = kNoValue;
};

// One process line of the Slurm node script into its task (by rank) on `node`.
void addProcess(QStringView line, const QString &node, const NodeClock &clock, QHash<QString, TaskUse> *tasks,
                QStringList *order)
{
    const qsizetype bar = line.indexOf(u'|');
    if (bar < 0)
        return;
    QString rank;
    QString procid;
    const auto words = line.left(bar).split(u' ', Qt::SkipEmptyParts);
    for (const QStringView word : words) {
        if (word.startsWith(u"rank="))
            rank = word.mid(5).toString();
        else if (word.startsWith(u"procid="))
            procid = word.mid(7).toString();
    }
    // /proc/PID/stat after "(comm) ": state is field 3 of the whole line, so field N is index N - 3 here.
    const auto stat = line.mid(bar + 1).split(u' ', Qt::SkipEmptyParts);
    if (stat.size() < 22)
        return;
    // utime and stime, and those of its children that ended (a shell's short commands): live children are
    // processes of their own here.
    const double cpuTicks =
        number(stat.at(14 - 3)) + number(stat.at(15 - 3)) + number(stat.at(16 - 3)) + number(stat.at(17 - 3));
    const double startTicks = number(stat.at(22 - 3));
    const double rssPages = stat.size() > 24 - 3 ? number(stat.at(24 - 3)) : kNoValue;
    if (!MetricEvent::has(cpuTicks))
        return;
    const QString task = !rank.isEmpty() ? rank : !procid.isEmpty() ? procid : QStringLiteral("job");
    const QString key = node + u'\n' + task;
    if (!tasks->contains(key)) {
        TaskUse use;
        use.node = node;
        use.task = task;
        use.cpuSeconds = 0;
        use.rssMiB = 0;
        tasks->insert(key, use);
        order->append(key);
    }
    TaskUse &use = (*tasks)[key];
    use.cpuSeconds += cpuTicks / clock.ticks;
    if (MetricEvent::has(rssPages))
        use.rssMiB += rssPages * clock.pageBytes / kBytesPerMiB;
    if (MetricEvent::has(clock.uptime) && MetricEvent::has(startTicks)) {
        const double elapsed = clock.uptime - startTicks / clock.ticks;
        if (!MetricEvent::has(use.elapsedSeconds) || elapsed > use.elapsedSeconds)
            use.elapsedSeconds = elapsed;
    }
    ++use.processes;
}

// sstat's times: [DD-][HH:]MM:SS[.mmm]; NaN for anything else.
double sstatSeconds(QStringView text)
{
    double days = 0;
    if (const qsizetype dash = text.indexOf(u'-'); dash >= 0) {
        days = number(text.left(dash));
        text = text.mid(dash + 1);
    }
    double seconds = 0;
    const auto parts = text.split(u':');
    if (parts.size() < 2 || parts.size() > 3)
        return kNoValue;
    for (const QStringView part : parts) {
        const double value = number(part);
        if (!MetricEvent::has(value))
            return kNoValue;
        seconds = seconds * 60 + value;
    }
    return MetricEvent::has(days) ? days * 86400 + seconds : kNoValue;
}

// sstat's sizes: "2048K", "1.50M", "3G", "0".
double sstatMiB(QStringView text)
{
    static const QList<std::pair<QChar, double>> units{
        {u'K', 1.0 / 1024.0}, {u'M', 1.0}, {u'G', 1024.0}, {u'T', 1024.0 * 1024.0}};
    for (const auto &[unit, mib] : units) {
        if (text.endsWith(unit))
            return number(text.chopped(1)) * mib;
    }
    return number(text) / kBytesPerMiB;
}

} // namespace

QList<TaskUse> parseSstat(const QByteArray &output)
{
    QList<TaskUse> tasks;
    const QString text = QString::fromUtf8(output);
    const auto lines = QStringView(text).split(u'\n', Qt::SkipEmptyParts);
    for (QStringView line : lines) {
        if (line.startsWith(u"@sstat "))
            line = line.mid(7);
        const auto fields = line.split(u'|');
        if (fields.size() != 5)
            continue;
        bool ok = false;
        const int count = fields.at(1).toInt(&ok);
        const double cpu = sstatSeconds(fields.at(3));
        const double rss = sstatMiB(fields.at(4));
        if (!ok || count <= 0 || !MetricEvent::has(cpu) || !MetricEvent::has(rss))
            continue;
        TaskUse task;
        task.node = firstNode(SchedulerKind::Slurm, fields.at(2).toString());
        task.task = fields.at(0).toString().section(u'.', 1); // the step: 0, batch, extern
        task.cpuSeconds = cpu * count;                        // its tasks' average, times their number
        task.rssMiB = rss * count;
        task.processes = count;
        tasks.append(task);
    }
    return tasks;
}

namespace {

ResourceProbeResult parseSlurmProbe(const QByteArray &output)
{
    ResourceProbeResult result;
    result.sample.via = QStringLiteral("proc");
    QHash<QString, QString> nodeOfLabel; // srun --label's task number: its node
    QHash<QString, NodeClock> clockOfLabel;
    QHash<QString, TaskUse> tasks;
    QStringList order;
    const QString text = QString::fromUtf8(output);
    const auto lines = QStringView(text).split(u'\n', Qt::SkipEmptyParts);
    for (const QStringView raw : lines) {
        const qsizetype colon = raw.indexOf(u": @");
        if (colon < 0)
            continue;
        const QString label = raw.left(colon).trimmed().toString();
        const QStringView line = raw.mid(colon + 2);
        if (line.startsWith(u"@node ")) {
            const auto words = line.split(u' ', Qt::SkipEmptyParts);
            nodeOfLabel.insert(label, words.value(1).toString());
            NodeClock clock;
            if (words.size() >= 5) {
                clock.ticks = std::max(1.0, number(words.at(2)));
                clock.pageBytes = number(words.at(3));
                clock.uptime = number(words.at(4));
            }
            clockOfLabel.insert(label, clock);
        } else if (!nodeOfLabel.contains(label)) {
            continue; // a line of a node that has not said its name: none is printed before it
        } else if (line.startsWith(u"@gpu ")) {
            GpuUse gpu;
            if (parseNvidiaSmiLine(line.mid(5), nodeOfLabel.value(label), &gpu))
                result.sample.gpus.append(gpu);
        } else if (line.startsWith(u"@pid ")) {
            addProcess(line.mid(5), nodeOfLabel.value(label), clockOfLabel.value(label), &tasks, &order);
        }
    }
    for (const QString &key : std::as_const(order))
        result.sample.tasks.append(tasks.value(key));
    if (nodeOfLabel.isEmpty() && result.sample.tasks.isEmpty()) {
        result.sample.tasks = parseSstat(output);
        result.sample.via = QStringLiteral("sstat");
    }
    if (result.sample.isEmpty())
        result.error = nodeOfLabel.isEmpty() ? core::Tr::tr("the sampling step printed nothing, and sstat nothing")
                                             : core::Tr::tr("no process of the job found on its nodes");
    return result;
}

// qstat -f (PBS Pro's JSON or Torque's "key = value" lines): resources_used of the one job listed.
ResourceProbeResult parsePbsProbe(const QByteArray &output)
{
    ResourceProbeResult result;
    result.sample.via = QStringLiteral("qstat");
    const qsizetype marker = output.indexOf("\n@@gpus");
    const QByteArray qstat = marker >= 0 ? output.left(marker) : output;
    QHash<QString, QString> used;
    QString node;
    const QJsonDocument json = QJsonDocument::fromJson(qstat);
    if (json.isObject()) {
        const QJsonObject jobs = json.object().value(u"Jobs").toObject();
        if (!jobs.isEmpty()) {
            const QJsonObject job = jobs.begin()->toObject();
            const QJsonObject resources = job.value(u"resources_used").toObject();
            for (auto it = resources.begin(); it != resources.end(); ++it)
                used.insert(it.key(), it->isString() ? it->toString() : QString::number(it->toDouble()));
            node = firstNode(SchedulerKind::Pbs, job.value(u"exec_host").toString());
        }
    } else {
        const auto lines = QString::fromUtf8(qstat).split(u'\n');
        for (const QString &line : lines) {
            const QString trimmed = line.trimmed();
            const qsizetype equals = trimmed.indexOf(QStringLiteral(" = "));
            if (equals < 0)
                continue;
            const QString name = trimmed.left(equals);
            if (name.startsWith(u"resources_used."))
                used.insert(name.mid(15), trimmed.mid(equals + 3));
            else if (name == u"exec_host")
                node = firstNode(SchedulerKind::Pbs, trimmed.mid(equals + 3));
        }
    }
    if (!used.isEmpty()) {
        TaskUse task;
        task.node = node;
        task.task = QStringLiteral("job");
        const qint64 cput = schedulertext::pbsDuration(used.value(QStringLiteral("cput")));
        const qint64 walltime = schedulertext::pbsDuration(used.value(QStringLiteral("walltime")));
        task.cpuSeconds = cput >= 0 ? double(cput) : kNoValue;
        task.elapsedSeconds = walltime > 0 ? double(walltime) : kNoValue;
        if (used.contains(QStringLiteral("mem")))
            task.rssMiB = pbsMiB(used.value(QStringLiteral("mem")));
        result.sample.tasks.append(task);
    }
    if (marker >= 0) {
        const auto lines = QString::fromUtf8(output.mid(marker + 7)).split(u'\n', Qt::SkipEmptyParts);
        for (const QString &line : lines) {
            GpuUse gpu;
            if (parseNvidiaSmiLine(line, node, &gpu))
                result.sample.gpus.append(gpu);
        }
    }
    if (result.sample.isEmpty())
        result.error = core::Tr::tr("qstat gave no resources_used for the job");
    return result;
}

} // namespace

QString resourceProbeCommand(SchedulerKind kind, PbsDialect dialect, const QString &jobId, const QString &nodes)
{
    switch (kind) {
    case SchedulerKind::Slurm:
        // Where the site forbids a step beside the job's (or the step cannot start), sstat: the job's steps
        // as accounting gathers them, when it does.
        return slurmOverlapStepCommand(jobId, nodes, QStringLiteral("torchdeck-sample"), kProbeSeconds,
                                       slurmNodeScript()) +
               QStringLiteral(" || sstat --noheader --parsable2 --allsteps --jobs=%1 "
                              "--format=JobID,NTasks,NodeList,AveCPU,AveRSS | sed 's/^/@sstat /'")
                   .arg(shellQuote(jobId));
    case SchedulerKind::Pbs: {
        QString command = dialect == PbsDialect::PbsPro ? QStringLiteral("qstat -f -F json %1").arg(shellQuote(jobId))
                                                        : QStringLiteral("qstat -f %1").arg(shellQuote(jobId));
        const QString node = firstNode(SchedulerKind::Pbs, nodes);
        if (!node.isEmpty())
            command += QStringLiteral("; echo; echo @@gpus; timeout %1 ssh -o BatchMode=yes -o ConnectTimeout=5 %2 "
                                      "%3 || true")
                           .arg(kProbeSeconds)
                           .arg(shellQuote(node), shellQuote(QString::fromLatin1(kGpuQuery)));
        return command;
    }
    case SchedulerKind::Local:
        break;
    }
    return {};
}

ResourceProbeResult parseResourceProbe(SchedulerKind kind, const QByteArray &output)
{
    return kind == SchedulerKind::Pbs ? parsePbsProbe(output) : parseSlurmProbe(output);
}

bool parseNvidiaSmiLine(QStringView line, const QString &node, GpuUse *gpu)
{
    const auto fields = line.split(u',');
    if (fields.size() != 4)
        return false;
    bool ok = false;
    const int index = fields.at(0).trimmed().toInt(&ok);
    if (!ok || index < 0)
        return false;
    gpu->node = node;
    gpu->index = index;
    gpu->utilization = number(fields.at(1));
    gpu->memoryUsedMiB = number(fields.at(2));
    gpu->memoryTotalMiB = number(fields.at(3));
    return true;
}

bool probeRacedJobEnd(const QByteArray &errorOutput)
{
    static const QList<QByteArray> saysEnded{"No steps running for job", "already completing or completed",
                                             "Invalid job id specified", "Job has finished", "Unknown Job Id"};
    return std::any_of(saysEnded.cbegin(), saysEnded.cend(),
                       [&errorOutput](const QByteArray &words) { return errorOutput.contains(words); });
}

} // namespace torchdeck
