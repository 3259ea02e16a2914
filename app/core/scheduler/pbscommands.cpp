#include "core/scheduler/pbscommands.h"

namespace torchdeck::pbs {

QStringList qsubArgs(const QString &scriptPath, const SubmitDependency &after)
{
    QStringList argv = {QStringLiteral("qsub")};
    if (after.kind != SubmitDependency::None && !after.jobIds.isEmpty()) {
        const QString type = after.kind == SubmitDependency::AfterOk      ? QStringLiteral("afterok")
                             : after.kind == SubmitDependency::AfterNotOk ? QStringLiteral("afternotok")
                                                                          : QStringLiteral("afterany");
        argv << QStringLiteral("-W") << (QStringLiteral("depend=") + type + u':' + after.jobIds.join(u':'));
    }
    argv.append(scriptPath);
    return argv;
}

QStringList qstatArgs(const QStringList &ids, PbsDialect dialect)
{
    QStringList argv = {QStringLiteral("qstat"), QStringLiteral("-f")};
    if (dialect == PbsDialect::PbsPro)
        argv << QStringLiteral("-F") << QStringLiteral("json") << QStringLiteral("-x");
    return argv + ids;
}

QStringList actionArgs(SchedulerAction action, const QStringList &ids)
{
    switch (action) {
    case SchedulerAction::Cancel:
        return QStringList{QStringLiteral("qdel")} + ids;
    case SchedulerAction::Requeue:
        return QStringList{QStringLiteral("qrerun")} + ids;
    case SchedulerAction::Hold:
        return QStringList{QStringLiteral("qhold")} + ids;
    case SchedulerAction::Release:
        return QStringList{QStringLiteral("qrls")} + ids;
    }
    return {};
}

} // namespace torchdeck::pbs
