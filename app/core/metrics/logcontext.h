#pragma once

#include "core/metrics/metricevent.h"

#include <QList>
#include <QString>

namespace torchdeck {

// What one log line says, by whichever rule read it (the general reader or a pattern), before the lines around
// it place it: positions as printed, values by what they mean.
struct LineReading {
    double epoch = kNoValue; // as printed: 0 where the script counts from 0, 0.5 for a fractional epoch
    bool fractionalEpoch = false;
    int epochBase = -1; // 0 or 1 where the rule knows what its tool counts from; -1: found from the log
    qint64 epochs = kNoCount;
    qint64 step = kNoCount; // global
    qint64 epochStep = kNoCount;
    qint64 stepsPerEpoch = kNoCount;
    double loss = kNoValue; // by step on a line with a step, else the epoch's train loss
    double epochLoss = kNoValue;
    double valLoss = kNoValue;
    double valAccuracy = kNoValue;
    double lr = kNoValue;
    double seconds = kNoValue;
    double samplesPerSecond = kNoValue;
    QList<NamedValue> extras;
    QList<NamedValue> trainExtras; // values only of a step (a training accuracy): left out of an epoch's event
    bool progressBar = false;      // a progress bar: its line at the epoch's last step is the epoch's summary
    bool validationPass = false;   // a position in a validation loop, not a training step
    bool epochSummary = false;     // a named training or validation summary of an epoch (fairseq's "train |")
    bool summary = false;          // a summary of the whole run (not plotted)
    bool nonFinite = false;        // a value printed as nan or inf (a diverged loss): still a line of values

    bool hasValues() const;
    bool hasEpochValues() const;
};

// Where a log has come to, carried from line to line: a line that gives only where we are ("Epoch 3/10",
// "Time taken for epoch 3 is 20.5 sec", "Epoch: [3][100/391]") sets the epoch, step and seconds of the lines
// after it, until the next such line. Also whether the log counts epochs from 0 (found at its first epoch;
// shown from 1 as everywhere) and the running count of steps for lines that print none.
class LogContext {
public:
    // The events of a line, placed; `note` says why a line with values gives none.
    QList<MetricEvent> take(const LineReading &line, QString *note = nullptr);

    // Reading a log on where an earlier part stopped (the tracker reads a job's log in passes).
    void setEpoch(qint64 epoch) { m_epoch = epoch; }
    void setEpochBase(int base) { m_base = base; }
    void setCountedStep(qint64 step) { m_counted = step; }
    void reset() { *this = LogContext(); }
    qint64 epoch() const { return m_epoch; }
    int epochBase() const { return m_base; }

private:
    qint64 epochOf(const LineReading &line);

    qint64 m_epoch = kNoCount; // shown from 1
    qint64 m_epochs = kNoCount;
    qint64 m_step = kNoCount; // from a line that gave only a position
    qint64 m_epochStep = kNoCount;
    qint64 m_steps = kNoCount;
    double m_seconds = kNoValue;
    int m_base = -1;
    qint64 m_counted = 0;
    double m_lastFraction = kNoValue;
};

} // namespace torchdeck
