#include "core/profiles/accountlimits.h"

#include "core/coretr.h"
#include "core/jobs/walltime.h"

#include <QJsonObject>
#include <QStringList>

namespace torchdeck {

namespace {
// "cpu=64,gres/gpu=8,node=4" (a typed gpu counts as well: "gres/gpu:a100=4")
void readTres(const QString &tres, JobLimits *limits)
{
    for (const QString &entry : tres.split(u',', Qt::SkipEmptyParts)) {
        const qsizetype eq = entry.indexOf(u'=');
        if (eq < 0)
            continue;
        const QString key = entry.left(eq).trimmed();
        bool ok = false;
        const int value = entry.mid(eq + 1).trimmed().toInt(&ok);
        if (!ok || value < 0)
            continue;
        if (key == u"node")
            limits->maxNodes = value;
        else if (key == u"gres/gpu" || key.startsWith(u"gres/gpu:"))
            limits->maxGpus = limits->maxGpus < 0 ? value : std::max(limits->maxGpus, value);
    }
}

QJsonObject limitsToJson(const JobLimits &limits)
{
    return {{QStringLiteral("max_seconds"), limits.maxWallSeconds},
            {QStringLiteral("max_nodes"), limits.maxNodes},
            {QStringLiteral("max_gpus"), limits.maxGpus}};
}

JobLimits limitsFromJson(const QJsonObject &o)
{
    JobLimits limits;
    limits.maxWallSeconds = qint64(o.value(QStringLiteral("max_seconds")).toDouble(-1));
    limits.maxNodes = o.value(QStringLiteral("max_nodes")).toInt(-1);
    limits.maxGpus = o.value(QStringLiteral("max_gpus")).toInt(-1);
    return limits;
}
} // namespace

QString sacctmgrAssociationsCommand()
{
    return QStringLiteral("sacctmgr --noheader --parsable2 show associations where user=\"$(id -un)\" "
                          "format=Account,Partition,QOS,DefaultQOS,MaxWall,MaxTRES");
}

QString sacctmgrQosCommand()
{
    return QStringLiteral("sacctmgr --noheader --parsable2 show qos format=Name,MaxWall,MaxTRES");
}

qint64 slurmLimitSeconds(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return -1;
    if (t.compare(u"UNLIMITED", Qt::CaseInsensitive) == 0 || t.compare(u"INFINITE", Qt::CaseInsensitive) == 0)
        return 0;
    return parseWallTime(t).value_or(-1);
}

QList<AccountAccess> parseSacctmgrAssociations(const QByteArray &output)
{
    QList<AccountAccess> accounts;
    for (const QByteArray &rawLine : output.split('\n')) {
        const QStringList fields = QString::fromUtf8(rawLine).trimmed().split(u'|');
        if (fields.size() != 6 || fields.at(0).isEmpty())
            continue;
        AccountAccess a;
        a.account = fields.at(0);
        a.partition = fields.at(1);
        a.qos = fields.at(2).split(u',', Qt::SkipEmptyParts);
        a.defaultQos = fields.at(3);
        a.limits.maxWallSeconds = slurmLimitSeconds(fields.at(4));
        readTres(fields.at(5), &a.limits);
        accounts.append(a);
    }
    return accounts;
}

QList<QosLimits> parseSacctmgrQos(const QByteArray &output)
{
    QList<QosLimits> all;
    for (const QByteArray &rawLine : output.split('\n')) {
        const QStringList fields = QString::fromUtf8(rawLine).trimmed().split(u'|');
        if (fields.size() != 3 || fields.at(0).isEmpty())
            continue;
        QosLimits q{fields.at(0), {}};
        q.limits.maxWallSeconds = slurmLimitSeconds(fields.at(1));
        readTres(fields.at(2), &q.limits);
        all.append(q);
    }
    return all;
}

QString describeAccounts(const QList<AccountAccess> &accounts)
{
    QStringList described;
    for (const AccountAccess &a : accounts) {
        QString text = a.account;
        if (!a.partition.isEmpty())
            text += core::Tr::tr(" on %1").arg(a.partition);
        if (!a.qos.isEmpty())
            text += core::Tr::tr(" (QOS %1)").arg(a.qos.join(QStringLiteral(", ")));
        if (!described.contains(text))
            described.append(text);
    }
    return described.join(QStringLiteral("; "));
}

QJsonArray accountsToJson(const QList<AccountAccess> &accounts)
{
    QJsonArray array;
    for (const AccountAccess &a : accounts)
        array.append(QJsonObject{{QStringLiteral("account"), a.account},
                                 {QStringLiteral("partition"), a.partition},
                                 {QStringLiteral("qos"), QJsonArray::fromStringList(a.qos)},
                                 {QStringLiteral("default_qos"), a.defaultQos},
                                 {QStringLiteral("limits"), limitsToJson(a.limits)}});
    return array;
}

QList<AccountAccess> accountsFromJson(const QJsonArray &array)
{
    QList<AccountAccess> accounts;
    for (const QJsonValue &value : array) {
        const QJsonObject o = value.toObject();
        AccountAccess a;
        a.account = o.value(QStringLiteral("account")).toString();
        if (a.account.isEmpty())
            continue; // damaged: what is not known is not checked
        a.partition = o.value(QStringLiteral("partition")).toString();
        for (const QJsonValue &q : o.value(QStringLiteral("qos")).toArray())
            a.qos.append(q.toString());
        a.defaultQos = o.value(QStringLiteral("default_qos")).toString();
        a.limits = limitsFromJson(o.value(QStringLiteral("limits")).toObject());
        accounts.append(a);
    }
    return accounts;
}

QJsonArray qosToJson(const QList<QosLimits> &qos)
{
    QJsonArray array;
    for (const QosLimits &q : qos)
        array.append(QJsonObject{{QStringLiteral("name"), q.name}, {QStringLiteral("limits"), limitsToJson(q.limits)}});
    return array;
}

QList<QosLimits> qosFromJson(const QJsonArray &array)
{
    QList<QosLimits> all;
    for (const QJsonValue &value : array) {
        const QJsonObject o = value.toObject();
        QosLimits q{o.value(QStringLiteral("name")).toString(),
                    limitsFromJson(o.value(QStringLiteral("limits")).toObject())};
        if (!q.name.isEmpty())
            all.append(q);
    }
    return all;
}

} // namespace torchdeck
