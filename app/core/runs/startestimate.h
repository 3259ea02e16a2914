#pragma once

#include "core/schedulerkind.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace torchdeck {

// Where a new run of several candidate clusters goes (`torchdeck submit A,B`): each cluster's answer to "when would
// this job start?", and the one chosen. Kept with the run (RunRecord::placement) and shown by `status`.
struct StartEstimate {
    QString cluster;
    QDateTime start;      // UTC; invalid: the cluster gave no estimate (PBS, a refusal, a skip)
    QString said;         // the scheduler's own line, or why there is no estimate
    bool skipped = false; // the cluster cannot run the job (or could not be asked): `said` says why

    bool known() const { return !skipped && start.isValid(); }
};

struct Placement {
    QString chosen;  // empty: none could run it
    QDateTime asked; // UTC, when the estimates were asked: they are relative to it
    QList<StartEstimate> estimates;
    bool isSet() const { return !estimates.isEmpty(); }
};

// The login-node command that asks the scheduler when `script` would start without submitting it: Slurm's
// `sbatch --test-only` (its line on stderr, kept with the exit code), after the cluster's UTC offset (`date +%z`),
// which the times it prints are local to. Empty where the scheduler cannot say before a submission (PBS, local).
QString startEstimateCommand(SchedulerKind kind, const QString &script);

// The estimate in what that command printed (`out`: its stdout and stderr together). A refusal or an unreadable
// answer is skipped with the scheduler's words: the job cannot run there as asked.
StartEstimate parseStartEstimate(const QString &cluster, int exitCode, const QByteArray &out);

// The candidate that starts soonest: estimates within a minute of each other are a tie, won by the first named; a
// cluster without an estimate comes after every one with one, and before none skipped. -1: every one was skipped.
qsizetype soonestStart(const QList<StartEstimate> &estimates);

QString placementJson(const Placement &placement);
Placement placementFromJson(const QString &json); // an empty Placement for empty or unreadable text

// For people, one line per candidate: "torchdeck-b   now   (chosen)", "a   2026-11-29 03:15 (in 1h00m)", "c
// skipped: ...". Times local, relative to when they were asked.
QStringList describeEstimates(const Placement &placement);
// Why the run went where it did, in one line: "chose torchdeck-b, where it would start soonest: torchdeck-sandbox
// in 1h00m, torchdeck-b now".
QString placementWhy(const Placement &placement);

} // namespace torchdeck
