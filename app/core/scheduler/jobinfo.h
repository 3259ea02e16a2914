#pragma once

#include "core/scheduler/jobstate.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// What one scheduler output says about one job. Fields the output does not carry keep their defaults.
// Times are the scheduler's clock readings (no zone in any of these formats), as Qt::LocalTime.
struct JobInfo {
    QString id; // as the scheduler prints it: "123", "123_4" (array), "123.server" (PBS)
    JobState state = JobState::Unknown;
    QString rawState; // the scheduler's word: "CANCELLED by 0", "PENDING", "F"
    QString name;
    int exitCode = -1; // -1: unknown or not ended
    int signal = 0;    // the signal that ended it, 0: none
    QString reason;    // Slurm's Reason, PBS's comment
    QString nodes;
    QString queue; // partition or queue
    QDateTime submitted;
    QDateTime started;
    QDateTime expectedStart; // while it waits: when the scheduler expects to start it (invalid: not said)
    QDateTime ended;
    qint64 timeLimitSeconds = -1; // -1: unknown, 0: unlimited
    qint64 elapsedSeconds = -1;   // -1: unknown
    int restarts = -1;            // times requeued; -1: the output does not say
};

// A parser's result: the jobs it could read and one message per line (or document) it could not.
// Where the format allows, a bad line costs only that line; where it does not (JSON), errors says why
// and jobs is empty.
struct JobListResult {
    QList<JobInfo> jobs;
    QStringList errors; // "line 3: expected 13 fields, got 4"

    bool ok() const { return errors.isEmpty(); }
    QString errorString() const { return errors.join(u'\n'); }
    const JobInfo *find(const QString &id) const;
};

// A submission's reply: the new job's id, or why there is none.
struct SubmitResult {
    QString jobId;   // "123", "123.server"
    QString cluster; // Slurm multi-cluster: "123;cluster"
    QString error;

    bool ok() const { return error.isEmpty(); }
};

} // namespace torchdeck
