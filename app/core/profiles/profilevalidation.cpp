#include "core/profiles/profilevalidation.h"

#include "core/coretr.h"
#include "core/jobs/directivevalue.h"
#include "core/metrics/logmetrics.h"

#include <QRegularExpression>

namespace torchdeck {

namespace {
// A path the remote shell resolves without a working directory: absolute, or from the home directory.
bool isRemoteAbsolute(const QString &path)
{
    return path.startsWith(u'/') || path == u"~" || path.startsWith(u"~/") || path.startsWith(u"$HOME/");
}
} // namespace

QList<ProfileError> validateClusterProfile(const ClusterProfile &profile)
{
    QList<ProfileError> errors;
    // The alias is an ssh config Host name: no blanks, no patterns.
    static const QRegularExpression alias(QStringLiteral("\\A[A-Za-z0-9._@-]+\\z"));
    if (profile.name.isEmpty())
        errors.append({QStringLiteral("name"), core::Tr::tr("The cluster needs a name (its ssh config Host alias).")});
    else if (!alias.match(profile.name).hasMatch())
        errors.append(
            {QStringLiteral("name"),
             core::Tr::tr("'%1' is not a host alias: use letters, digits, '.', '_', '-' and '@'.").arg(profile.name)});
    if (profile.workDirectory.trimmed().isEmpty()) {
        errors.append({QStringLiteral("work_directory"), core::Tr::tr("The work directory is empty.")});
    } else if (profile.scheduler == SchedulerKind::Slurm) {
        // Slurm's jobs name their logs under it on #SBATCH lines, which cannot quote (PBS's and local jobs redirect
        // theirs in the script, quoted). A leading ~ or $HOME is the cluster's home, resolved there.
        QString named = profile.workDirectory;
        for (const QString &home : {QStringLiteral("~/"), QStringLiteral("$HOME/")})
            if (named.startsWith(home))
                named = named.mid(home.size());
        if (named == u"~")
            named.clear();
        if (const QString problem = directiveValueProblem(named, profile.scheduler); !problem.isEmpty())
            errors.append({QStringLiteral("work_directory"), core::Tr::tr("The work directory %1").arg(problem)});
    }
    if (profile.libtorch != u"auto" && !isRemoteAbsolute(profile.libtorch))
        errors.append({QStringLiteral("libtorch"),
                       core::Tr::tr("LibTorch is \"auto\" or an absolute path on the cluster (/..., ~/...).")});
    if (!profile.trainerBinary.isEmpty() && !isRemoteAbsolute(profile.trainerBinary))
        errors.append({QStringLiteral("trainer_binary"),
                       core::Tr::tr("The trainer binary is an absolute path on the cluster, or empty to build it.")});
    if (profile.buildInJob && profile.scheduler == SchedulerKind::Local)
        errors.append({QStringLiteral("build_on"),
                       core::Tr::tr("Building the trainer in a job needs a scheduler: Slurm (srun) or PBS (qsub).")});
    if (profile.buildCpus < 1 || profile.buildCpus > 1024)
        errors.append({QStringLiteral("build_cpus"), core::Tr::tr("The build job's CPUs are 1 to 1024.")});
    for (const QString &module : profile.modules) {
        if (module.trimmed().isEmpty() || module.contains(u'\n'))
            errors.append({QStringLiteral("modules"), core::Tr::tr("A module name is empty or holds a line break.")});
    }
    if (const QString problem = userLogPatternProblem(profile.logPatterns); !problem.isEmpty())
        errors.append({QStringLiteral("log_patterns"), problem});
    for (const QString &line : profile.reach) {
        const ReachLine parsed = parseReachLine(line);
        if (parsed.cluster.isEmpty() || parsed.sshArgs.isEmpty() || line.contains(u'\n'))
            errors.append(
                {QStringLiteral("reach"),
                 core::Tr::tr("A reach is one line CLUSTER=SSH ARGUMENTS, e.g. other=-p 22 me@login.other.org; "
                              "got \"%1\".")
                     .arg(line)});
    }
    return errors;
}

} // namespace torchdeck
