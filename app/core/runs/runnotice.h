#pragma once

#include "core/store/runrecord.h"

#include <QJsonObject>
#include <QString>
#include <optional>

namespace torchdeck {

// What the agent tells its user of a run, once per event however many fronts are attached: a desktop
// notification, a line in `watch` (with the bell), and the JSON a profile's notify_command gets on stdin.
struct RunNotice {
    enum class Kind { Completed, Failed, Restarted, RestartFailed, Stalled, Waiting, Moved, MoveFailed };
    Kind kind = Kind::Completed;
    QString runId;
    QString runName;
    QString cluster;
    QString jobId;  // the job that ended, or the new one
    QString detail; // the cause in words, the restart's reason, why the restart failed

    // "completed" | "failed" | "restarted" | "restart_failed" | "stalled" | "waiting" | "moved" | "move_failed"
    QString event() const;
    QString title() const; // "run fashion completed"
    QString body() const;  // "job 17 on narvi: out of memory; <the run's message>"
    QJsonObject toJson() const;
};

// The notice of a run that ended in this pass (`stateBefore`: its stored state before): completed, or failed
// with its cause (core/runs/jobscheduling.h) and the run's own message. None while it goes on, to be restarted
// (requeued), or when it was cancelled (its user did that).
std::optional<RunNotice> endNotice(const QString &stateBefore, const RunRecord &run, const QList<JobRecord> &jobs);
RunNotice restartNotice(const RunRecord &run, const QString &jobId, const QString &reason);
RunNotice restartFailedNotice(const RunRecord &run, const QString &error);
// Its running job shows no progress (core/runs/stallcheck.h); `message` says for how long and which rank.
RunNotice stallNotice(const RunRecord &run, const QString &jobId, const QString &message);
// Its job has waited past the profile's limit (waitedPastLimit): for how long, and why (jobWhy).
RunNotice waitNotice(const RunRecord &run, const JobRecord &job, const QDateTime &now);
// Its waiting restart `job` moved to another cluster (--move-after), or could not: `detail` says where and why.
RunNotice moveNotice(const RunRecord &run, const JobRecord &job, bool moved, const QString &detail);

} // namespace torchdeck
