#include "core/scheduler/localcommands.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

namespace torchdeck::local {

using namespace schedulertext;

namespace {

// $0 is the state dir, $1 the script. The run records its exit code atomically, SIGTERM included, and
// setsid (a background child is no group leader, so setsid does not fork) keeps $$ equal to $!. The job
// scripts are bash; they learn the id (the runner's PID) from TORCHDECK_LOCAL_JOB_ID. A TERM is passed on
// to the script, which passes it to the ranks.
constexpr char16_t runner[] = u"export TORCHDECK_LOCAL_JOB_ID=$$; "
                              u"trap 'kill -TERM $c 2>/dev/null; echo 143 >\"$0/$$.exit.tmp\"; mv "
                              u"\"$0/$$.exit.tmp\" \"$0/$$.exit\"; exit 143' TERM; "
                              u"bash \"$1\" & c=$!; wait $c; s=$?; echo $s >\"$0/$$.exit.tmp\"; mv "
                              u"\"$0/$$.exit.tmp\" \"$0/$$.exit\"; exit $s";
// Each run records the script it was started from (PID.script): a submission whose reply was lost finds it.
constexpr char16_t launcher[] = u"mkdir -p \"$1\" && { setsid sh -c \"$3\" \"$1\" \"$2\" </dev/null >/dev/null 2>&1 & "
                                u"pid=$!; printf '%s\\n' \"$2\" >\"$1/$pid.script\"; echo $pid; }";
// The state of each id in "$@", a line each; $dir is the state dir.
constexpr char16_t eachState[] = u"for id; do "
                                 u"if [ -f \"$dir/$id.exit\" ]; then echo \"$id exited $(cat \"$dir/$id.exit\")\"; "
                                 u"elif kill -0 \"$id\" 2>/dev/null; then echo \"$id running\"; "
                                 u"else echo \"$id gone\"; fi; done";
constexpr char16_t status[] = u"dir=$1; shift; ";
// The runs started from the script $2.
constexpr char16_t startedFrom[] =
    u"dir=$1; want=$2; set --; for f in \"$dir\"/*.script; do [ -f \"$f\" ] || continue; "
    u"[ \"$(cat \"$f\")\" = \"$want\" ] || continue; id=${f##*/}; "
    u"set -- \"$@\" \"${id%.script}\"; done; ";

} // namespace

QStringList submitArgs(const QString &stateDir, const QString &scriptPath)
{
    // The run's output goes to STATEDIR/PID.log: the runner redirects itself once it knows its pid.
    const QString run = QStringLiteral("exec >\"$0/$$.log\" 2>&1; ") + QString::fromUtf16(runner);
    return {QStringLiteral("sh"),
            QStringLiteral("-c"),
            QString::fromUtf16(launcher),
            QStringLiteral("torchdeck-local"),
            stateDir,
            scriptPath,
            run};
}

QStringList statusArgs(const QString &stateDir, const QStringList &ids)
{
    return QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                       QString::fromUtf16(status) + QString::fromUtf16(eachState), QStringLiteral("torchdeck-local"),
                       stateDir} +
           ids;
}

QStringList startedFromArgs(const QString &stateDir, const QString &scriptPath)
{
    return {QStringLiteral("sh"),
            QStringLiteral("-c"),
            QString::fromUtf16(startedFrom) + QString::fromUtf16(eachState),
            QStringLiteral("torchdeck-local"),
            stateDir,
            scriptPath};
}

QStringList cancelArgs(const QStringList &ids)
{
    QStringList argv = {QStringLiteral("kill"), QStringLiteral("-TERM"), QStringLiteral("--")};
    for (const QString &id : ids)
        argv.append(u'-' + id); // the run's process group
    return argv;
}

JobListResult parseLocalStatus(const QByteArray &output)
{
    JobListResult result;
    for (const Line &line : nonBlankLines(output)) {
        const QStringList words = line.text.split(u' ', Qt::SkipEmptyParts);
        bool idOk = false;
        bool codeOk = words.size() == 3;
        const int code = codeOk ? words.at(2).toInt(&codeOk) : -1;
        if (words.size() < 2 || words.at(0).toLongLong(&idOk) <= 0 || !idOk || (words.at(1) == u"exited" && !codeOk)) {
            result.errors.append(core::Tr::tr("line %1: not 'PID running|gone|exited CODE': '%2'")
                                     .arg(line.number)
                                     .arg(line.text.left(60)));
            continue;
        }
        JobInfo job;
        job.id = words.at(0);
        job.rawState = words.mid(1).join(u' ');
        if (words.at(1) == u"running") {
            job.state = JobState::Running;
        } else if (words.at(1) == u"exited") {
            job.exitCode = code;
            job.signal = code > 128 && code < 160 ? code - 128 : 0; // the shell's 128 + signal
            job.state = code == 0                               ? JobState::Completed
                        : (job.signal == 15 || job.signal == 9) ? JobState::Cancelled
                                                                : JobState::Failed;
        } else if (words.at(1) == u"gone") {
            job.state = JobState::Failed;
            job.reason = core::Tr::tr("ended without recording an exit code (killed)");
        } else {
            result.errors.append(core::Tr::tr("line %1: unknown local state '%2'").arg(line.number).arg(words.at(1)));
            continue;
        }
        result.jobs.append(job);
    }
    return result;
}

} // namespace torchdeck::local
