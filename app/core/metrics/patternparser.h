#pragma once

#include "core/metrics/metricevent.h"

#include <QByteArrayView>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <optional>

namespace torchdeck {

// A user-configurable regular expression for plain log lines. Named groups it may use:
//   epoch, epochs          epoch number and planned total
//   step                   global step
//   epoch_step, steps      step inside the epoch and steps per epoch (global step =
//   (epoch-1)*steps+epoch_step) loss                   train loss (per step when a step is captured, else per
//   epoch) val_loss, accuracy     validation loss and accuracy (val_accuracy is accepted for accuracy) lr,
//   seconds            learning rate, epoch duration in seconds
// At least one of loss, val_loss, accuracy is required.
struct LogPattern {
    QString name;
    QString regex;
    int epochBase = 1; // 0 where the tool counts epochs from 0 (Lightning's "Epoch 0:")
    // Keras: the epoch is on a line of its own ("Epoch 3/10") before the progress lines, and a progress line
    // at the epoch's last step ("469/469 ...") is also the epoch's summary (an Epoch event follows its Step).
    bool epochFromHeader = false;
};

// Turns plain log lines of users' own scripts into Step and Epoch events. The first pattern that matches
// a line wins. Lines with a step but no way to know the global step get a running count instead.
class PatternParser {
public:
    PatternParser(); // the built-in defaults
    static QList<LogPattern> defaultPatterns();

    // Replaces the patterns. On an error (invalid regex, unknown group, no value group) the old set stays
    // and the message names the pattern.
    QString setPatterns(const QList<LogPattern> &patterns);
    QList<LogPattern> patterns() const;
    static QString validate(const LogPattern &pattern);

    std::optional<MetricEvent> parse(QStringView line);
    // A raw line of bytes (UTF-8): progress bars rewrite themselves with '\r', so every '\r'-separated
    // segment is parsed, and consecutive segments about the same step collapse into the last one. A line
    // labelled by srun --label ("3: ...") counts only for rank 0.
    QList<MetricEvent> parseLine(QByteArrayView line);

    void resetCounters() { m_implicitStep = 0; }
    // Lines with no step of their own count on from here (a log read in parts).
    void setImplicitStep(qint64 step) { m_implicitStep = step; }
    // The epoch an "Epoch N/M" line before this part of the log named (a log read in parts: the epoch after
    // the last one it ended).
    void setHeaderEpoch(qint64 epoch) { m_headerEpoch = epoch; }

private:
    struct Compiled {
        LogPattern pattern;
        QRegularExpression regex;
    };
    static std::optional<Compiled> compile(const LogPattern &pattern, QString *error);

    QList<Compiled> m_compiled;
    qint64 m_implicitStep = 0;
    qint64 m_headerEpoch = kNoCount;
    qint64 m_headerEpochs = kNoCount;
    bool m_lastEndsEpoch = false; // the last parse() was an epochFromHeader pattern at its epoch's last step
};

} // namespace torchdeck
