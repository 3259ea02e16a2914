#include "core/runs/sweepsubmission.h"

#include "core/coretr.h"
#include "core/jobs/arrayscript.h"
#include "core/jobs/runlayout.h"
#include "core/jobs/walltime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace torchdeck {

namespace {

std::optional<int> positive(const QString &name, const QString &value, QString *error)
{
    bool number = false;
    const int n = value.toInt(&number);
    if (number && n >= 0)
        return n;
    *error = core::Tr::tr("%1 wants a whole number: %2").arg(name, value);
    return std::nullopt;
}

} // namespace

QString sweepPointJson(const SweepPoint &point)
{
    QJsonObject object;
    for (const auto &[name, value] : point.values)
        object.insert(name, value);
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QString sweepAxesJson(const QList<SweepAxis> &axes)
{
    QJsonArray array;
    for (const SweepAxis &axis : axes)
        array.append(QJsonObject{{QStringLiteral("name"), axis.name},
                                 {QStringLiteral("values"), QJsonArray::fromStringList(axis.values)}});
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

QString sweepPointName(const QString &base, const SweepPoint &point)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]"));
    QString name = base;
    for (const auto &[setting, value] : point.values)
        name += u'.' + QString(setting).remove(QStringLiteral("env:")) + value;
    return name.replace(unsafe, QStringLiteral("_")).left(64);
}

std::optional<JobSpec> specWithValue(JobSpec spec, const QString &name, const QString &value, QString *error)
{
    const auto number = [&](int &field) {
        const std::optional<int> n = positive(name, value, error);
        if (n)
            field = *n;
        return n.has_value();
    };
    if (name == u"nodes")
        return number(spec.nodes) ? std::optional(spec) : std::nullopt;
    if (name == u"tasks-per-node")
        return number(spec.tasksPerNode) ? std::optional(spec) : std::nullopt;
    if (name == u"gpus-per-node")
        return number(spec.gpusPerNode) ? std::optional(spec) : std::nullopt;
    if (name == u"cpus-per-task")
        return number(spec.cpusPerTask) ? std::optional(spec) : std::nullopt;
    if (name == u"time") {
        const std::optional<qint64> seconds = parseWallTime(value);
        if (!seconds) {
            *error = core::Tr::tr("time wants a wall time such as 01:30:00: %1").arg(value);
            return std::nullopt;
        }
        spec.wallTimeSeconds = *seconds;
        return spec;
    }
    // The window's names and the terminal's (--mem, --queue) for the same settings.
    if (name == u"partition" || name == u"queue") {
        spec.partition = value;
        return spec;
    }
    if (name == u"memory" || name == u"mem") {
        spec.memory = value;
        return spec;
    }
    if (name == u"account") {
        spec.account = value;
        return spec;
    }
    if (name.startsWith(QStringLiteral("env:"))) {
        const QString variable = name.mid(4);
        spec.environment.removeIf([&](const EnvironmentVariable &each) { return each.name == variable; });
        spec.environment.append({variable, value});
        return spec;
    }
    if (spec.commandKind != CommandKind::Trainer) {
        *error = core::Tr::tr("%1 is an option of the bundled trainer; a command's settings are varied as env:NAME")
                     .arg(name);
        return std::nullopt;
    }
    const QString flag = QStringLiteral("--") + name;
    if (!isTrainerOption(flag)) {
        *error = core::Tr::tr("%1 is neither a job setting (nodes, tasks-per-node, gpus-per-node, cpus-per-task, "
                              "time, partition, memory, account, env:NAME) nor an option of the bundled trainer")
                     .arg(name);
        return std::nullopt;
    }
    spec.trainerArgs = withTrainerOption(spec.trainerArgs, flag, value);
    return spec;
}

QString arrayRefusal(const ClusterCaps &caps, const QList<SubmissionScript> &previews, int maxRunning)
{
    QList<ArrayTask> tasks;
    for (const SubmissionScript &preview : previews)
        tasks.append({preview.runDirectory, preview.script});
    return renderArrayScript(caps, tasks, QStringLiteral("sweep"), QStringLiteral("/array"),
                             RunLayout{{}}.scriptName(0), maxRunning)
        .error;
}

} // namespace torchdeck
