#pragma once

#include "core/metrics/logcontext.h"
#include "core/metrics/metricevent.h"

#include <QByteArrayView>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <optional>

namespace torchdeck {

// A user-configurable regular expression for plain log lines. Named groups it may use:
//   epoch, epochs          epoch number and planned total
//   step                   global step
//   epoch_step, steps      step inside the epoch and steps per epoch: global step = (epoch-1)*steps+epoch_step
//   loss                   train loss (per step when the line has a step, else per epoch)
//   val_loss, accuracy     validation loss and accuracy (val_accuracy is accepted for accuracy)
//   lr, seconds            learning rate, epoch duration in seconds
// A pattern that captures a value (loss, val_loss, accuracy) reads lines of values; one that captures only
// context groups (epoch, epochs, step, epoch_step, steps, seconds) is a context pattern: the line sets where
// the lines after it belong (LogContext).
struct LogPattern {
    QString name;
    QString regex;
    int epochBase = -1; // 0 where the tool counts epochs from 0 (Lightning's "Epoch 0:"); -1: found from the log
    bool builtIn = false;
};

// How one log line was read, for a person (`logs RUN --explain`, the run view's Log patterns editor).
struct LineExplanation {
    QStringList rules;    // the rule that read each segment: the general reader, a built-in or a user pattern
    bool context = false; // the line only set where the lines after it belong
    QString note;         // why a line that a rule read gave nothing, or what else it did
    QList<MetricEvent> events;
};

// Turns plain log lines of users' own scripts into Step and Epoch events: the user's patterns first, then the
// general reader of named numbers (generalReading), then the built-in patterns; the first that reads a line
// wins. Lines are placed by their context (LogContext): the epoch and step of the lines before them where
// they print none, a running count where there is no step at all.
class PatternParser {
public:
    PatternParser(); // the built-in defaults
    static QList<LogPattern> defaultPatterns();

    // Replaces the patterns. On an error (invalid regex, unknown group, nothing captured) the old set stays
    // and the message names the pattern.
    QString setPatterns(const QList<LogPattern> &patterns);
    QList<LogPattern> patterns() const;
    static QString validate(const LogPattern &pattern);
    // Whether a valid pattern only gives context (no value group).
    static bool isContextPattern(const LogPattern &pattern);

    // The events of one line (no '\r' in it); the first of them, for tests of single lines.
    std::optional<MetricEvent> parse(QStringView line);
    // A raw line of bytes (UTF-8): progress bars rewrite themselves with '\r', so every '\r'-separated
    // segment is parsed, and consecutive segments about the same step collapse into the last one. A line
    // labelled by another rank than 0 (srun --label's "3: ", torchrun's "[rank3]:") counts for nothing.
    QList<MetricEvent> parseLine(QByteArrayView line, LineExplanation *explanation = nullptr);

    void resetCounters() { m_context.reset(); }
    // Reading a log on where an earlier part of it stopped: lines with no step count on from `step`, lines
    // with no epoch are in `epoch` until one names another, and whether the script counts epochs from 0.
    void setImplicitStep(qint64 step) { m_context.setCountedStep(step); }
    void setHeaderEpoch(qint64 epoch) { m_context.setEpoch(epoch); }
    void setEpochFromZero(bool fromZero) { m_context.setEpochBase(fromZero ? 0 : -1); }

private:
    struct Compiled {
        LogPattern pattern;
        QRegularExpression regex;
    };
    static std::optional<Compiled> compile(const LogPattern &pattern, QString *error);
    QList<MetricEvent> parseSegment(QStringView segment, LineExplanation *explanation);

    QList<Compiled> m_compiled;
    LogContext m_context;
};

} // namespace torchdeck
