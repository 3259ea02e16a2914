#include "core/profiles/partitionshape.h"

#include "core/coretr.h"
#include "core/jobs/walltime.h"
#include "core/scheduler/schedulertext.h"

#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <algorithm>

namespace torchdeck {

namespace {
// "4", "4+" (nodes of several sizes: the smallest, then '+'); -1 for anything else.
qint64 leadingNumber(QStringView text)
{
    text = text.trimmed();
    if (text.endsWith(u'+'))
        text.chop(1);
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    return ok && value >= 0 ? value : -1;
}

// "gpu:a100:4(S:0-1),mps:100", "gpu:2", "(null)": the GPUs per node and their types.
int gpusOf(QStringView gres, QStringList *types)
{
    int gpus = 0;
    for (QStringView entry : gres.split(u',', Qt::SkipEmptyParts)) {
        if (const qsizetype paren = entry.indexOf(u'('); paren >= 0)
            entry = entry.left(paren);
        const QList<QStringView> parts = entry.split(u':');
        if (parts.size() < 2 || parts.first() != u"gpu")
            continue;
        const qint64 count = leadingNumber(parts.last());
        if (count < 0)
            continue;
        gpus += int(count);
        if (parts.size() >= 3 && !types->contains(parts.at(1).toString()))
            types->append(parts.at(1).toString());
    }
    return gpus;
}
} // namespace

QString sinfoPartitionsCommand()
{
    return QStringLiteral("sinfo --noheader --format='%P|%l|%D|%c|%m|%G'");
}

QList<PartitionCaps> parseSinfoPartitions(const QByteArray &output, QString *defaultPartition)
{
    QList<PartitionCaps> partitions;
    for (const QByteArray &rawLine : output.split('\n')) {
        const QString line = QString::fromUtf8(rawLine).trimmed();
        const QStringList fields = line.split(u'|');
        if (fields.size() != 6 || fields.at(0).isEmpty())
            continue;
        QString name = fields.at(0);
        const bool isDefault = name.endsWith(u'*');
        if (isDefault)
            name.chop(1);
        const QString limit = fields.at(1).trimmed().toUpper();
        const qint64 seconds = schedulertext::slurmDuration(limit);
        const qint64 nodes = leadingNumber(fields.at(2));
        const qint64 cpus = leadingNumber(fields.at(3));
        const qint64 memory = leadingNumber(fields.at(4));
        if (name.isEmpty() || seconds < 0 || nodes < 0)
            continue;
        auto known = std::find_if(partitions.begin(), partitions.end(),
                                  [&name](const PartitionCaps &p) { return p.name == name; });
        if (known == partitions.end()) {
            PartitionCaps p;
            p.name = name;
            p.maxSeconds = seconds;
            p.gpusPerNode = 0;
            partitions.append(p);
            known = partitions.end() - 1;
        }
        known->isDefault = known->isDefault || isDefault;
        known->nodes += int(nodes);
        known->cpusPerNode = std::max(known->cpusPerNode, int(std::max<qint64>(0, cpus)));
        known->memoryMiB = std::max(known->memoryMiB, std::max<qint64>(0, memory));
        known->gpusPerNode = std::max(known->gpusPerNode, gpusOf(fields.at(5), &known->gpuTypes));
        if (isDefault && defaultPartition)
            *defaultPartition = name;
    }
    return partitions;
}

QString qstatQueuesCommand()
{
    return QStringLiteral("qstat -Q -f"); // Torque's and Slurm's wrapper take no "-Qf"
}

QList<PartitionCaps> parseQstatQueues(const QByteArray &output)
{
    QList<PartitionCaps> queues;
    QMap<QString, QString> attributes;
    QString name;
    const auto flush = [&] {
        const auto yes = [&](const char16_t *key) { // PBS Pro: True; Torque and Slurm's wrapper: yes
            const QString value = attributes.value(QString::fromUtf16(key)).toLower();
            return value == u"true" || value == u"yes";
        };
        const bool runs =
            attributes.value(QStringLiteral("queue_type")).compare(u"Execution", Qt::CaseInsensitive) == 0 &&
            yes(u"enabled") && yes(u"started");
        if (!name.isEmpty() && runs) {
            PartitionCaps q;
            q.name = name;
            const QString wall = attributes.value(QStringLiteral("resources_max.walltime"));
            q.maxSeconds = wall.isEmpty() ? 0 : parseWallTime(wall).value_or(-1);
            QString nodes = attributes.value(QStringLiteral("resources_max.nodect"));
            if (nodes.isEmpty())
                nodes = attributes.value(QStringLiteral("resources_available.nodect"));
            q.nodes = int(std::max<qint64>(0, leadingNumber(nodes)));
            const QString gpus = attributes.value(QStringLiteral("resources_max.ngpus"));
            q.gpusPerNode = gpus.isEmpty() ? -1 : int(leadingNumber(gpus));
            queues.append(q);
        }
        attributes.clear();
        name.clear();
    };
    QString key;
    for (const QByteArray &rawLine : output.split('\n')) {
        const QString line = QString::fromUtf8(rawLine);
        if (line.startsWith(u"Queue:")) {
            flush();
            name = line.mid(6).trimmed();
            continue;
        }
        const qsizetype eq = line.indexOf(QStringLiteral(" = "));
        if (eq > 0) {
            key = line.left(eq).trimmed();
            attributes.insert(key, line.mid(eq + 3).trimmed());
        } else if (!key.isEmpty() && line.startsWith(u'\t')) {
            attributes[key] += line.trimmed(); // a long value goes on, tab-indented
        }
    }
    flush();
    return queues;
}

QString describeTimeLimit(qint64 seconds)
{
    if (seconds == 0)
        return core::Tr::tr("no time limit");
    if (seconds < 0)
        return core::Tr::tr("time limit unknown");
    const qint64 days = seconds / 86400;
    const qint64 hours = seconds % 86400 / 3600;
    const qint64 minutes = seconds % 3600 / 60;
    QStringList parts;
    if (days > 0)
        parts.append(days == 1 ? core::Tr::tr("1 day") : core::Tr::tr("%1 days").arg(days));
    if (hours > 0)
        parts.append(core::Tr::tr("%1 h").arg(hours));
    if (minutes > 0 || parts.isEmpty())
        parts.append(core::Tr::tr("%1 min").arg(std::max<qint64>(1, minutes)));
    return parts.join(u' ');
}

QString describePartitions(const QList<PartitionCaps> &partitions)
{
    QStringList described;
    for (const PartitionCaps &p : partitions) {
        QStringList facts{describeTimeLimit(p.maxSeconds),
                          p.nodes == 1 ? core::Tr::tr("1 node") : core::Tr::tr("%1 nodes").arg(p.nodes)};
        if (p.cpusPerNode > 0)
            facts.append(core::Tr::tr("%1 CPUs").arg(p.cpusPerNode));
        if (p.memoryMiB > 0)
            facts.append(core::Tr::tr("%1 GiB").arg(double(p.memoryMiB) / 1024.0, 0, 'f', 1));
        if (p.gpusPerNode > 0)
            facts.append(p.gpuTypes.isEmpty()
                             ? core::Tr::tr("%1 GPUs").arg(p.gpusPerNode)
                             : core::Tr::tr("%1 GPUs (%2)").arg(p.gpusPerNode).arg(p.gpuTypes.join(u'/')));
        described.append(
            QStringLiteral("%1%2: %3")
                .arg(p.name, p.isDefault ? core::Tr::tr(" (default)") : QString(), facts.join(QStringLiteral(", "))));
    }
    return described.join(QStringLiteral("; "));
}

QJsonArray partitionsToJson(const QList<PartitionCaps> &partitions)
{
    QJsonArray array;
    for (const PartitionCaps &p : partitions)
        array.append(QJsonObject{{QStringLiteral("name"), p.name},
                                 {QStringLiteral("default"), p.isDefault},
                                 {QStringLiteral("max_seconds"), p.maxSeconds},
                                 {QStringLiteral("nodes"), p.nodes},
                                 {QStringLiteral("cpus"), p.cpusPerNode},
                                 {QStringLiteral("memory_mib"), p.memoryMiB},
                                 {QStringLiteral("gpus"), p.gpusPerNode},
                                 {QStringLiteral("gpu_types"), QJsonArray::fromStringList(p.gpuTypes)}});
    return array;
}

QList<PartitionCaps> partitionsFromJson(const QJsonArray &array)
{
    QList<PartitionCaps> partitions;
    for (const QJsonValue &value : array) {
        const QJsonObject o = value.toObject();
        PartitionCaps p;
        p.name = o.value(QStringLiteral("name")).toString();
        if (p.name.isEmpty())
            continue; // damaged: what is not known is not checked
        p.isDefault = o.value(QStringLiteral("default")).toBool();
        p.maxSeconds = qint64(o.value(QStringLiteral("max_seconds")).toDouble(-1));
        p.nodes = o.value(QStringLiteral("nodes")).toInt();
        p.cpusPerNode = o.value(QStringLiteral("cpus")).toInt();
        p.memoryMiB = qint64(o.value(QStringLiteral("memory_mib")).toDouble());
        p.gpusPerNode = o.value(QStringLiteral("gpus")).toInt(-1);
        for (const QJsonValue &type : o.value(QStringLiteral("gpu_types")).toArray())
            p.gpuTypes.append(type.toString());
        partitions.append(p);
    }
    return partitions;
}

} // namespace torchdeck
