#include "core/scheduler/slurmcommands.h"

#include "core/scheduler/sacctparser.h"
#include "core/scheduler/squeueparser.h"

namespace torchdeck::slurm {

namespace {

QString dependencyType(JobDependency::Kind kind) {
    switch (kind) {
    case JobDependency::AfterOk:
        return QStringLiteral("afterok");
    case JobDependency::AfterNotOk:
        return QStringLiteral("afternotok");
    case JobDependency::AfterAny:
        return QStringLiteral("afterany");
    case JobDependency::None:
        break;
    }
    return {};
}

} // namespace

QStringList sbatchArgs(const QString &scriptPath, const JobDependency &after) {
    QStringList argv = {QStringLiteral("sbatch"), QStringLiteral("--parsable")};
    if (after.kind != JobDependency::None && !after.jobIds.isEmpty())
        argv.append(QStringLiteral("--dependency=") + dependencyType(after.kind) + u':' +
                    after.jobIds.join(u':'));
    argv.append(scriptPath);
    return argv;
}

QStringList squeueArgs(const QStringList &ids) {
    return {QStringLiteral("squeue"), QStringLiteral("--noheader"), QStringLiteral("--states=all"),
            QStringLiteral("--jobs=") + ids.join(u','), QStringLiteral("--Format=") + squeueFormat()};
}

QStringList sacctArgs(const QStringList &ids, bool completionFile) {
    QStringList argv = {QStringLiteral("sacct")};
    if (completionFile)
        argv.append(QStringLiteral("-c"));
    argv << QStringLiteral("--parsable2") << QStringLiteral("--noheader") << QStringLiteral("--allocations")
         << (QStringLiteral("--jobs=") + ids.join(u',')) << (QStringLiteral("--format=") + sacctFormat());
    return argv;
}

QStringList scontrolShowJobArgs() {
    return {QStringLiteral("scontrol"), QStringLiteral("--oneliner"), QStringLiteral("show"),
            QStringLiteral("job")};
}

QStringList actionArgs(SchedulerAction action, const QStringList &ids) {
    const QString list = ids.join(u',');
    switch (action) {
    case SchedulerAction::Cancel:
        return QStringList{QStringLiteral("scancel")} + ids;
    case SchedulerAction::Requeue:
        return {QStringLiteral("scontrol"), QStringLiteral("requeue"), list};
    case SchedulerAction::Hold:
        return {QStringLiteral("scontrol"), QStringLiteral("hold"), list};
    case SchedulerAction::Release:
        return {QStringLiteral("scontrol"), QStringLiteral("release"), list};
    }
    return {};
}

} // namespace torchdeck::slurm
