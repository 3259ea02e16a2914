#pragma once

#include "core/jobs/clustercaps.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// One task of a job array: a run's directory and the script a submission of that run alone would send.
struct ArrayTask {
    QString runDirectory;
    QString script;
};

// The directives of a rendered script that decide where and how it runs, its name and logs left out: runs
// whose shapes are equal can go as one job array. Empty for a script without directives (a local job).
QStringList arrayShape(const QString &script);

struct ArrayScript {
    QString script;
    QString error; // why these tasks cannot go as one array
    bool ok() const { return error.isEmpty(); }
};

// One job array whose task i runs tasks[i].script (which stays in its run directory, as `scriptName`): the
// tasks' shared directives, the array's name, Slurm's --array=0-(n-1)%maxRunning (PBS Pro -J with
// max_run_subjobs, Torque -t with %), and for Slurm each task's log in its own run directory through
// <arrayDirectory>/<i>, a link to it (the PBS body writes its own log). Refused when there are fewer than two
// tasks, their shapes differ, or a log is not under its run directory. maxRunning 0: no limit.
ArrayScript renderArrayScript(const ClusterCaps &caps, const QList<ArrayTask> &tasks, const QString &name,
                              const QString &arrayDirectory, const QString &scriptName, int maxRunning);

// The shell command that prints what limits an array on this cluster: the largest array (Slurm's
// MaxArraySize, PBS's max_array_size or Torque's max_job_array_size), a line "@", then the user's most jobs
// in the queue at once (Slurm's MaxSubmitJobs of their association). Either may be empty: not known.
QString arrayLimitsCommand(SchedulerKind scheduler);
// Why an array of `tasks` tasks would be refused, from that command's output; empty when it fits or the
// limits are not known.
QString arrayLimitProblem(SchedulerKind scheduler, const QByteArray &limitsOutput, int tasks);
// Why `jobs` separate jobs (a sweep's points, a chain) would pass the user's MaxSubmitJobs, from the same
// output; empty when they fit or it is not known.
QString queueLimitProblem(const QByteArray &limitsOutput, int jobs);

// The scheduler's id of task `index` of the array `arrayJobId`: "123" -> "123_4", "123[].pbs" -> "123[4].pbs".
QString arrayTaskJobId(SchedulerKind scheduler, const QString &arrayJobId, int index);
// The array's id from the id of any of its tasks, or from its own: "123_4" -> "123", "123[4].pbs" -> "123[].pbs".
QString arrayJobIdOf(SchedulerKind scheduler, const QString &jobId);

} // namespace torchdeck
