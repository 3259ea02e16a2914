#pragma once

#include "core/jobs/jobspec.h"
#include "core/jobs/resumefrom.h"

namespace torchdeck {

// Where one run lives on the cluster: everything under one directory, one script, log and metrics file per
// attempt (an attempt requeued in-job by the scheduler appends to its own files), one checkpoint directory
// for the whole run so `--resume auto` of any attempt finds the newest checkpoint.
struct RunLayout {
    QString directory; // absolute: <work directory>/runs/<run id>

    QString scriptName(int attempt) const { return QStringLiteral("job-%1.sh").arg(attempt); }
    QString outputPattern(int attempt) const { return directory + QStringLiteral("/attempt-%1-%j.out").arg(attempt); }
    QString metricsPath(int attempt) const { return directory + QStringLiteral("/metrics-%1.jsonl").arg(attempt); }
    // The attempt's job's own record of its start and end (core/jobs/jobtrace.h).
    QString traceFile(int attempt) const { return directory + QStringLiteral("/attempt-%1.job").arg(attempt); }
    QString checkpointDirectory() const { return directory + QStringLiteral("/checkpoints"); }
    // Where a custom command with a code folder runs: the run's copy of the snapshot (core/code/coderemote.h).
    QString codeDirectory() const { return directory + QStringLiteral("/code"); }
};

// The work directory's folders, under its absolute path: each run's directory, the deployed trainers by content
// hash, the content-addressed store of code snapshots (core/code/coderemote.h) and local jobs' state.
struct WorkLayout {
    QString directory; // absolute, symlinks resolved (workDirectoryCommand)

    QString runDirectory(const QString &runId) const { return directory + QStringLiteral("/runs/") + runId; }
    QString trainerDirectory(const QString &bundleHash) const
    {
        return directory + QStringLiteral("/trainer/") + bundleHash;
    }
    QString trainerBinary(const QString &bundleHash) const
    {
        return trainerDirectory(bundleHash) + QStringLiteral("/build/torchdeck-train");
    }
    QString codeStore() const { return directory + QStringLiteral("/code"); }
    // A job array's script and its links to the runs' directories, named after its first run.
    QString arrayDirectory(const QString &firstRunId) const
    {
        return directory + QStringLiteral("/arrays/") + firstRunId;
    }
    QString localStateDirectory() const { return directory + QStringLiteral("/local"); }
};

// The shell command that makes the work directory (a path the shell expands, "~/" allowed) with the local/
// folder of scheduler-less jobs, readable by the user alone (umask 077), and prints it absolute with its
// symlinks resolved. A submission and a
// preview resolve it the same way, so the previewed script names the same paths as the submitted one.
QString workDirectoryCommand(const QString &workDirectory);

// Where local (scheduler-less) jobs keep their state: <work directory>/local, found from any path inside
// <work directory>/runs/; empty when the path is not in a run directory (the user chose another log path).
QString localStateDirectoryOf(const QString &pathInRun);

// The spec of one attempt as submitted: the run directory as working directory (unless the user chose one;
// <run directory>/code for a command with a code folder),
// the log there, and for the bundled trainer its binary, metrics file and checkpoint directory (unless the
// user passed those); a custom command gets them as TORCHDECK_RUN_ID, TORCHDECK_ATTEMPT,
// TORCHDECK_CHECKPOINT_DIR, TORCHDECK_METRICS_FILE and, when it resumes, TORCHDECK_RESUME=1. `resume`
// replaces any `--resume` unless it is ResumeFrom::AsSpecified.
JobSpec attemptSpec(JobSpec spec, const RunLayout &layout, int attempt, const QString &trainerBinary,
                    const ResumeFrom &resume);

// The value of the spec's environment variable `name`; empty when it sets none.
QString environmentValue(const JobSpec &spec, const QString &name);

// The value of a trainer flag ("--epochs 4" or "--epochs=4"); empty if absent.
QString trainerOption(const QStringList &args, const QString &flag);
// The epochs the bundled trainer's --epochs sets; -1: none (a user's command says its own total in its metrics,
// whatever trainer options its spec carries).
qint64 specifiedEpochs(const JobSpec &spec);
// Sets a flag's value, replacing every earlier occurrence of it.
QStringList withTrainerOption(const QStringList &args, const QString &flag, const QString &value);
// Whether the bundled trainer takes this flag ("--lr") from a job's options: the terminal's job options and
// the window's sweep grid accept these, and refuse a typo rather than pass it to every job.
bool isTrainerOption(QStringView flag);

} // namespace torchdeck
