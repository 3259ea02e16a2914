#include "core/scheduler/slurmcommands.h"

#include "core/scheduler/sacctparser.h"
#include "core/scheduler/squeueparser.h"

namespace torchdeck::slurm {

namespace {

QString dependencyType(SubmitDependency::Kind kind)
{
    switch (kind) {
    case SubmitDependency::AfterOk:
        return QStringLiteral("afterok");
    case SubmitDependency::AfterNotOk:
        return QStringLiteral("afternotok");
    case SubmitDependency::AfterAny:
        return QStringLiteral("afterany");
    case SubmitDependency::None:
        break;
    }
    return {};
}

} // namespace

QStringList sbatchArgs(const QString &scriptPath, const SubmitDependency &after)
{
    QStringList argv = {QStringLiteral("sbatch"), QStringLiteral("--parsable")};
    if (after.kind != SubmitDependency::None && !after.jobIds.isEmpty())
        argv.append(QStringLiteral("--dependency=") + dependencyType(after.kind) + u':' + after.jobIds.join(u':'));
    argv.append(scriptPath);
    return argv;
}

QStringList squeueArgs(const QStringList &ids)
{
    // --array: one line per array task ("123_4"), pending ones too, as the runs know their jobs.
    return {QStringLiteral("squeue"),
            QStringLiteral("--noheader"),
            QStringLiteral("--states=all"),
            QStringLiteral("--array"),
            QStringLiteral("--jobs=") + ids.join(u','),
            QStringLiteral("--Format=") + squeueFormat()};
}

QStringList squeueNamedArgs(const QString &jobName)
{
    return {
        QStringLiteral("squeue"),  QStringLiteral("--noheader"),        QStringLiteral("--states=all"),
        QStringLiteral("--array"), QStringLiteral("--name=") + jobName, QStringLiteral("--Format=") + squeueFormat()};
}

QStringList sacctArgs(const QStringList &ids, bool completionFile)
{
    QStringList argv = {QStringLiteral("sacct")};
    if (completionFile)
        argv.append(QStringLiteral("-c"));
    argv << QStringLiteral("--parsable2") << QStringLiteral("--noheader") << QStringLiteral("--allocations")
         << (QStringLiteral("--jobs=") + ids.join(u',')) << (QStringLiteral("--format=") + sacctFormat());
    return argv;
}

QStringList sacctNamedArgs(const QString &jobName, const QDateTime &since, bool completionFile)
{
    QStringList argv = {QStringLiteral("sacct")};
    if (completionFile)
        argv.append(QStringLiteral("-c"));
    // sacct reads the time in the cluster's own zone: a day earlier covers any difference from UTC.
    argv << QStringLiteral("--parsable2") << QStringLiteral("--noheader") << QStringLiteral("--allocations")
         << (QStringLiteral("--starttime=") + since.toUTC().addDays(-1).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")))
         << (QStringLiteral("--name=") + jobName) << (QStringLiteral("--format=") + sacctFormat());
    return argv;
}

QStringList scontrolShowJobArgs()
{
    return {QStringLiteral("scontrol"), QStringLiteral("--oneliner"), QStringLiteral("show"), QStringLiteral("job")};
}

QStringList actionArgs(SchedulerAction action, const QStringList &ids)
{
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
