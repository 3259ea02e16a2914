#pragma once

#include "core/jobs/clustercaps.h"

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QString>

namespace torchdeck {

// What Slurm's accounting says the user may run (`sacctmgr`), read with the partitions and kept in the profile:
// the accounts they may charge, and the limits of their associations and QOS. Where the cluster keeps no
// accounting the commands fail and nothing is known (so nothing is checked).

// One association per line: Account|Partition|QOS|DefaultQOS|MaxWall|MaxTRES (a partition of its own or none).
QString sacctmgrAssociationsCommand();
// One QOS per line: Name|MaxWall|MaxTRES (per job).
QString sacctmgrQosCommand();

// Lines that cannot be read are passed over.
QList<AccountAccess> parseSacctmgrAssociations(const QByteArray &output);
QList<QosLimits> parseSacctmgrQos(const QByteArray &output);

// "1-00:00:00" -> seconds; "" -> -1 (no limit set); "UNLIMITED" -> 0
qint64 slurmLimitSeconds(const QString &text);

// "acct-a (QOS normal, long), acct-b on gpu"
QString describeAccounts(const QList<AccountAccess> &accounts);

QJsonArray accountsToJson(const QList<AccountAccess> &accounts);
QList<AccountAccess> accountsFromJson(const QJsonArray &array);
QJsonArray qosToJson(const QList<QosLimits> &qos);
QList<QosLimits> qosFromJson(const QJsonArray &array);

} // namespace torchdeck
