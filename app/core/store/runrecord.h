#pragma once

#include "core/jobs/jobspec.h"
#include "core/metrics/metricevent.h"
#include "core/scheduler/jobstate.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace torchdeck {

// One run as the store keeps it. Spec and state are kept as text (the job spec's JSON, a state name), so
// a store written by another version still opens; spec() and jobState() read them typed. Unknown numbers are
// NaN / -1, stored as NULL.
struct RunRecord {
    QString id; // a UUID without braces
    QString name;
    QString cluster;
    QDateTime created; // UTC
    QDateTime updated; // UTC, set by the store on every write
    QString state;
    QString specJson;
    QString script; // as submitted
    qint64 epochsDone = 0;
    qint64 epochsTotal = kNoCount;
    double lastLoss = kNoValue;
    double etaSeconds = kNoValue;
    QString message;         // the latest error or note, shown with the run
    bool autoRestart = true; // restarted from outside when its job stops to be requeued (restartdecision.h)
    QString note;            // what the user wrote of it
    QStringList tags = {};   // sorted, each a tagError()-free word
    QString placement = {};  // where a run of several candidate clusters went and why (startestimate.h's JSON)

    JobSpec::FromJson spec() const; // the stored spec, or why it is unreadable
    JobState jobState() const { return jobStateFromName(state); }
    bool hasEnded() const { return isFinal(jobState()); }
};

// Where the tails of a job stopped: each offset is the first byte not yet consumed as a whole line.
struct TailOffsets {
    qint64 stdoutOffset = 0;
    qint64 stderrOffset = 0;
    qint64 metricsOffset = 0;
};

// What the scheduler last said of a job beyond its state (core/runs/jobscheduling.h reads it to words).
struct JobScheduling {
    QString state;              // its own word for the state: "OUT_OF_MEMORY", "PENDING", "Q"
    QString reason;             // why it waits or ended: Slurm's Reason ("Priority", "BeginTime"), PBS's comment
    QDateTime startEstimate;    // UTC; while it waits, when the scheduler expects to start it; invalid: not said
    QString nodes;              // where it runs or ran: "node[01-02]"
    qint64 elapsedSeconds = -1; // once it ended, how long it ran; -1: not ended or not said

    bool operator==(const JobScheduling &other) const
    {
        return state == other.state && reason == other.reason && startEstimate == other.startEstimate &&
               nodes == other.nodes && elapsedSeconds == other.elapsedSeconds;
    }
    bool operator!=(const JobScheduling &other) const { return !(*this == other); }
};

// One scheduler job of a run; a run that was requeued or resumed has several, attempt 0, 1, ...
struct JobRecord {
    QString runId;
    int attempt = 0;
    QString jobId;
    QDateTime submitted; // UTC
    QString state;
    int exitCode = -1;  // -1: not ended or unknown
    QString resumeFrom; // the checkpoint this attempt started from, empty: from scratch
    QString stdoutPath;
    QString stderrPath;
    QString metricsPath;
    TailOffsets offsets;
    JobScheduling scheduling;
    QString cluster = {}; // where it was sent; empty in a record saved without it: its run's
    // How the attempt came to be: "submit", "resume" (the user's), "restart" (the agent's own, a move included),
    // "chain" (queued behind the one before); empty in a record saved before origins were kept.
    QString origin = {};

    JobState jobState() const { return jobStateFromName(state); }
    bool hasEnded() const { return isFinal(jobState()); }
};

// A file a custom command's own logger writes under its run directory (TensorBoard events, Lightning's
// metrics.csv): the attempt that first wrote it, and how far it was read (bytes; rows for a CSV, which its
// logger rewrites whole) at what size.
struct LoggerFileRecord {
    QString path; // absolute, on the cluster
    int attempt = 0;
    qint64 offset = 0;
    qint64 size = 0;
};

// A change of what the user calls a run and wrote of it: each field given is replaced.
struct RunAnnotation {
    std::optional<QString> name;
    std::optional<QString> note;
    std::optional<QStringList> tags;
};

// Why a tag cannot be one (empty: it can): a word of letters, digits and . _ - + : @ /, at most 64 long.
QString tagError(const QString &tag);
// Why a run's name (`lines` false) or note (`lines`: line breaks and tabs allowed) cannot be that text: control
// characters (an escape sequence would reach every terminal that lists the run). Empty: it can; `what` names it.
QString annotationError(const QString &what, const QString &text, bool lines);
// The tags after adding and removing some: sorted, each once.
QStringList editedTags(QStringList tags, const QStringList &added, const QStringList &removed);

// The scheduler's ids of a run's jobs, by attempt; an attempt still being submitted (claimed, no job id yet)
// has none.
QStringList submittedJobIds(const QList<JobRecord> &jobs);

struct CheckpointRecord {
    QString runId;
    QString path;
    int attempt = 0;
    qint64 epoch = kNoCount;
    qint64 step = kNoCount;
    qint64 bytes = kNoCount;
    double time = kNoValue; // Unix seconds
    bool valid = true;      // false: torn or failed its check
    bool best = false;      // lowest validation loss
    QString reason;         // epoch | steps | signal | final
};

// Runs submitted as one grid (`torchdeck sweep`, core/runs/sweepgrid.h).
struct SweepRecord {
    QString id; // a UUID without braces
    QString cluster;
    QString name;
    QDateTime created; // UTC
    QString axesJson;  // what it varies: [{"name": "nodes", "values": ["1", "2"]}]
};
// A run of a sweep, with its point's values as JSON ({"nodes": "2"}).
struct SweepMember {
    QString runId;
    QString pointJson;
};

// The path of the checkpoint named as `torchdeck checkpoints` lists it: its file name or its step (the last
// match, one still in the live directory before one set aside by a branch); empty when none is.
QString checkpointNamed(const QList<CheckpointRecord> &checkpoints, const QString &fileOrStep);

// Where resuming attempt `attempt` from an older checkpoint sets the newer ones of `liveDirectory` aside
// (remote/checkpointbranch.h), and whether a checkpoint lies in such a directory.
QString supersededCheckpointDirectory(const QString &liveDirectory, int attempt);
bool isSupersededCheckpoint(const QString &path);

} // namespace torchdeck
