#include "core/runs/pbsbuildjob.h"

#include "core/coretr.h"
#include "core/jobs/jobscript.h"
#include "core/jobs/jobspecvalidation.h"
#include "core/profiles/clusterprofile.h"
#include "core/shellquote.h"

namespace torchdeck {

namespace {
const QString bodyName = QStringLiteral(".torchdeck-build-body.sh");
const QString jobName = QStringLiteral(".torchdeck-build-job.sh");
const QString logName = QStringLiteral(".torchdeck-build.log");
const QString exitMarker = QStringLiteral("torchdeck-build-exit=");
} // namespace

QString pbsBuildJobScript(const ClusterProfile &profile, const QString &trainerDir, int cpus, QString *error)
{
    JobSpec spec;
    spec.name = QStringLiteral("torchdeck-build");
    spec.cpusPerTask = std::max(cpus, 1);
    spec.wallTimeSeconds = qint64(30) * 60;
    spec.partition = profile.partition;
    spec.account = profile.account;
    spec.workingDirectory = trainerDir;
    spec.launch = LaunchMethod::Local;
    spec.commandKind = CommandKind::Custom;
    spec.customCommand = QStringLiteral("bash %1; echo \"%2$?\"").arg(bodyName, exitMarker);
    spec.outputPath = trainerDir + u'/' + logName;
    spec.checkpointSignalEnabled = false;
    ClusterCaps caps = profile.caps();
    caps.scheduler = SchedulerKind::Pbs; // a PBS build job, whatever else the profile says
    const ScriptResult script = renderJobScript(spec, caps);
    if (!script.ok()) {
        *error = core::Tr::tr("the build job cannot be written for %1:\n%2")
                     .arg(profile.name, formatJobSpecErrors(script.errors));
        return {};
    }
    return script.script;
}

QString pbsBuildAndWaitCommand(const QString &buildScript, const QString &jobScript)
{
    // qstat's default table: the state is the fifth column of the job's line, C or F once it has ended; a
    // job that has left the server's memory prints nothing.
    static const QString follow =
        QStringLiteral("printf '%s\\n' \"$1\" > %1 && printf '%s\\n' \"$2\" > %2 || exit 1; "
                       "log=\"$PWD\"/%3; rm -f \"$log\"; id=$(qsub %2) || exit 1; "
                       "echo \"build job $id submitted; its output follows\"; "
                       "tail -n +1 -F \"$log\" 2>/dev/null & follower=$!; "
                       "while st=$(qstat \"$id\" 2>/dev/null | awk 'NR > 2 { print $5 }') && test -n \"$st\" "
                       "&& test \"$st\" != C "
                       "&& test \"$st\" != F; do sleep 2; done; "
                       "sleep 2; kill \"$follower\" 2>/dev/null; "
                       "code=$(sed -n 's/^%4//p' \"$log\" 2>/dev/null | tail -n 1); "
                       "if test -z \"$code\"; then echo \"build job $id ended without reporting the build's "
                       "result (see $log)\"; exit 1; fi; "
                       "exit \"$code\"");
    return QStringLiteral("sh -c %1 torchdeck-build %2 %3")
        .arg(shellQuote(follow.arg(bodyName, jobName, logName, exitMarker)), shellQuote(buildScript),
             shellQuote(jobScript));
}

} // namespace torchdeck
