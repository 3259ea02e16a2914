#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/runseries.h"
#include "core/runs/sweepgrid.h"
#include "core/store/runrecord.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <utility>

namespace torchdeck {

class RunStore;

// One point of a sweep as its table shows it: the run's shape, its speed and its losses.
struct SweepRow {
    QString runId;
    QString name;
    QString state;
    QString jobId;                             // its latest job
    QList<std::pair<QString, QString>> varied; // the point's values, in the sweep's order
    int nodes = 0;
    int ranks = 0;                      // nodes x tasks per node (the run's world size once it says)
    double secondsPerEpoch = kNoValue;  // steady state: steadyMean; without epoch times, the jobs' elapsed time
    bool timedByJob = false;            // secondsPerEpoch is the jobs' elapsed time (the scheduler's)
    double samplesPerSecond = kNoValue; // the same epochs' mean
    double finalTrainLoss = kNoValue;   // the last epoch's (mean), else the last step's
    double finalValLoss = kNoValue;
    double bestValLoss = kNoValue;
    double speedup = kNoValue; // fillSpeedups
    double efficiency = kNoValue;
};

// A row from what the store has of a point's run: its spec's shape, the latest job and the series.
SweepRow sweepRowOf(const RunRecord &run, const QList<JobRecord> &jobs, const RunSeries &series,
                    const QList<std::pair<QString, QString>> &varied);

// What an epoch takes (seconds, samples/s) once running: the mean of the epochs after the first (which pays for
// start-up and warm-up), the first alone when there is only one; NaN for none.
double steadyMean(const QList<double> &perEpoch);

// Speedup (t0 / t) and efficiency (speedup over the ranks' ratio) against the row with the fewest ranks that has
// an epoch time (of those, the fewest nodes); rows without a time get neither. Rows timed by their jobs compare
// among themselves only when no row has epoch times. Rows all of one shape (a learning-rate sweep) get none.
void fillSpeedups(QList<SweepRow> &rows);

// A scaling sweep by ranks then nodes; any other by best val loss, the best first (rows without one last).
void sortSweepRows(QList<SweepRow> &rows, bool scaling);

// The table's column names (the varied settings first, nodes apart: a column of its own) and a row's cells.
QStringList sweepTableHeader(const QList<SweepRow> &rows);
QStringList sweepTableCells(const SweepRow &row);

// The table as Markdown (like the tutorials' runtime tables) and as CSV; the varied settings come first.
QString sweepMarkdown(const QList<SweepRow> &rows);
QString sweepCsv(const QList<SweepRow> &rows);
QJsonObject sweepRowToJson(const SweepRow &row);

// What a stored sweep varies (its axes_json).
QList<SweepAxis> sweepAxesOf(const SweepRecord &sweep);
// Whether it varies only the job's shape: its table compares speed (else losses).
bool isScalingSweep(const SweepRecord &sweep);
// The table of a stored sweep, both fronts': a row per member run (from the store: its jobs and series),
// speedups filled, sorted as its kind wants.
QList<SweepRow> sweepRowsOf(const RunStore &store, const SweepRecord &sweep, const QList<SweepMember> &members,
                            const QList<RunRecord> &runs);

// The whole-sweep actions' choice of runs, both fronts': "resume the unfinished" sends again the runs that ended
// short of completing; a delete is refused while runs go on (these are the ones that do).
QList<RunRecord> sweepRunsToResume(const QList<RunRecord> &runs);
QList<RunRecord> sweepRunsGoingOn(const QList<RunRecord> &runs);

} // namespace torchdeck
