#include "core/runs/checkfindings.h"

#include "core/coretr.h"
#include "core/profiles/accountlimits.h"
#include "core/profiles/partitionshape.h"
#include "core/runs/requeueprobe.h"
#include "core/runs/runfiles.h"

#include <QJsonDocument>

namespace torchdeck {

namespace {
const QString partitionsName = QStringLiteral("Partitions");
} // namespace

CheckItem partitionsCheckItem(int exitCode, const QByteArray &out, const QString &err)
{
    QString defaultPartition;
    const QList<PartitionCaps> partitions = parseSinfoPartitions(out, &defaultPartition);
    if (exitCode != 0 || partitions.isEmpty())
        return {core::Tr::tr("Partitions"), true,
                core::Tr::tr("sinfo told none (%1): their limits are not checked before a job is sent")
                    .arg(err.isEmpty() ? core::Tr::tr("exit %1").arg(exitCode) : err),
                true};
    return {core::Tr::tr("Partitions"), true, describePartitions(partitions), false,
            partitionsName + u' ' +
                QString::fromUtf8(QJsonDocument(partitionsToJson(partitions)).toJson(QJsonDocument::Compact))};
}

CheckItem accountsCheckItem(int exitCode, const QByteArray &out, const QString &err)
{
    const QList<AccountAccess> accounts = parseSacctmgrAssociations(out);
    if (exitCode != 0 || accounts.isEmpty())
        return {core::Tr::tr("Accounts"), true,
                core::Tr::tr("sacctmgr lists none for you (%1): accounts and QOS limits are not checked")
                    .arg(err.isEmpty() ? core::Tr::tr("exit %1").arg(exitCode) : err.section(u'\n', 0, 0))};
    return {core::Tr::tr("Accounts"), true, describeAccounts(accounts)};
}

QString reachProbeCommand(const QString &line)
{
    return sshWithReach(parseReachLine(line).sshArgs) + QStringLiteral(" true");
}

CheckItem reachCheckItem(const QString &line, int exitCode, const QString &err)
{
    const ReachLine reach = parseReachLine(line);
    if (reach.cluster.isEmpty() || reach.sshArgs.isEmpty()) // a profile edited by hand: never tried
        return {core::Tr::tr("Reach"), false,
                core::Tr::tr("\"%1\" is not CLUSTER=SSH ARGUMENTS: fix it in the profile (torchdeck profile NAME "
                             "--reach CLUSTER=ARGS)")
                    .arg(line)};
    const QString name = core::Tr::tr("Reaches %1").arg(reach.cluster);
    if (exitCode == 0)
        return {
            name, true,
            core::Tr::tr("with `ssh %1`: checkpoints and code go straight from %2").arg(reach.sshArgs, reach.cluster)};
    // ssh's last line says why (refused, no key, unknown host); the lines before are its warnings.
    const QString why = err.trimmed().section(u'\n', -1);
    CheckItem item{name, true,
                   core::Tr::tr("not with `ssh %1` (%2): copies from %3 go through this machine")
                       .arg(reach.sshArgs, why.isEmpty() ? core::Tr::tr("exit %1").arg(exitCode) : why, reach.cluster)};
    item.warning = true;
    return item;
}

bool keepCheckFindings(const QList<CheckItem> &items, ClusterProfile *profile, const QDateTime &now)
{
    bool kept = false;
    if (const std::optional<InJobRequeue> found = requeueFinding(items)) {
        profile->inJobRequeue = *found;
        kept = true;
    }
    for (const CheckItem &item : items) {
        if (!item.finding.startsWith(partitionsName + u' '))
            continue;
        const QJsonDocument json = QJsonDocument::fromJson(item.finding.mid(partitionsName.size() + 1).toUtf8());
        profile->partitions = partitionsFromJson(json.array());
        profile->partitionsReadAt = now;
        kept = true;
    }
    return kept;
}

} // namespace torchdeck
