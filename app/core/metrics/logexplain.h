#pragma once

#include "core/metrics/patternparser.h"

#include <QByteArrayView>
#include <QList>
#include <QString>

namespace torchdeck {

// One line of a log as the tracker reads it: the rule that read it (the general reader, a built-in pattern, a
// user's pattern; context where it only set where the next lines belong) and the values it gave.
struct ExplainedLine {
    qsizetype number = 0; // from 1
    QString text;
    LineExplanation explanation;
    qsizetype repeats = 0; // events dropped as another rank's repeat of values already given
};

// Every line of `log` that a rule read, through `patterns` (jobLogPatterns) and the rank filter, in order.
// Pure: the run view's Log patterns editor and `torchdeck logs RUN --explain` show it.
QList<ExplainedLine> explainLog(QByteArrayView log, const QList<LogPattern> &patterns);

// "epoch 3/10: loss 0.042, val_loss 0.05" or "step 420 (epoch 2): loss 0.31"; "(counted)" marks a step the log
// does not print.
QString describeEvent(const MetricEvent &event);
// One line's explanation, "RULES: GIVES": "general reader: step 420 (epoch 2): loss 0.31",
// "pattern "...": context: epoch 3", "nothing: another rank's line".
QString explanationText(const ExplainedLine &line);
QString explanationRules(const ExplainedLine &line); // "general reader", ...; "nothing"
QString explanationGives(const ExplainedLine &line); // what it gave, or why nothing

} // namespace torchdeck
