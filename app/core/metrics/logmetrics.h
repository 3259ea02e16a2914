#pragma once

#include "core/metrics/metricevent.h"
#include "core/metrics/patternparser.h"
#include "core/metrics/runseries.h"

#include <QList>
#include <QStringList>

namespace torchdeck {

// A user's own command has no metrics file of torchdeck's: its log is read with log patterns instead
// (docs/metrics-schema.md, "Users' own scripts").

// The patterns for a job: its own (--log-pattern, named by their text) first, then the built-in ones.
QList<LogPattern> jobLogPatterns(const QStringList &userRegexes);
// The first of the user's patterns that cannot work, and why; empty when all can.
QString userLogPatternProblem(const QStringList &userRegexes);

// How far an attempt's log has come: its highest epoch and step so far.
struct LogProgress {
    qint64 epoch = 0;
    qint64 step = 0;
};
LogProgress logProgressOf(const RunSeries &series, int attempt);

// Every rank of an mp.spawn or unlabelled srun job prints the same progress line: the first line of each
// epoch and of each step is kept, the other ranks' repeats dropped, so the curve does not zig-zag between
// ranks. Events get the time they were read (log lines carry none).
QList<MetricEvent> firstOfEachRank(const QList<MetricEvent> &events, double readTime, LogProgress *progress);

} // namespace torchdeck
