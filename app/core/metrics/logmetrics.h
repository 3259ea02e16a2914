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
// For each valid user pattern that captures only context groups (PatternParser::isContextPattern), a line
// that says so: accepted, it places the lines after it. Said at submit and by `profile --log-pattern`.
QStringList contextPatternNotes(const QStringList &userRegexes);

// How far an attempt's log has come, and what its latest epoch and step gave (RunSeries::LogMark).
using LogProgress = RunSeries::LogMark;
LogProgress logProgressOf(const RunSeries &series, int attempt);
// A parser that reads an attempt's log on from where `progress` says it stopped: lines with no step count on
// after its steps, lines with no epoch are in the epoch it was in (the next one after an epoch's summary),
// and a script that counts epochs from 0 still does.
void resumeLogParser(PatternParser *parser, const LogProgress &progress);

// Every rank of an mp.spawn or unlabelled srun job prints the same progress line: the first line of each
// epoch and of each step is kept and the other ranks' repeats dropped, so the curve does not zig-zag between
// ranks; a later line of the same epoch or step adds only values not given yet. Events get the time they were
// read (log lines carry none).
QList<MetricEvent> firstOfEachRank(const QList<MetricEvent> &events, double readTime, LogProgress *progress);

} // namespace torchdeck
