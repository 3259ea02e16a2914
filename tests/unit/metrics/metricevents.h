#pragma once

#include "core/metrics/metricevent.h"

#include <QStringList>

// Metric events for the tests of what reads and shows them: the series, the summary, the charts, the watch
// screen. Every field not given stays absent (kNoCount, kNoValue).
namespace torchdeck::testing {

// A step event: global step `at` with its batch loss, in `epoch`, at `samplesPerSecond`.
inline MetricEvent stepEvent(qint64 at, double loss, qint64 epoch = kNoCount, double samplesPerSecond = kNoValue)
{
    MetricEvent e;
    e.kind = MetricEventKind::Step;
    e.step = at;
    e.epoch = epoch;
    e.loss = loss;
    e.samplesPerSecond = samplesPerSecond;
    return e;
}

// An epoch event: epoch `n` of `epochs`, its mean train loss and validation loss, how long it took and its
// validation accuracy.
inline MetricEvent epochEvent(qint64 n, qint64 epochs, double loss, double valLoss, double seconds = kNoValue,
                              double valAccuracy = kNoValue)
{
    MetricEvent e;
    e.kind = MetricEventKind::Epoch;
    e.epoch = n;
    e.epochs = epochs;
    e.loss = loss;
    e.valLoss = valLoss;
    e.seconds = seconds;
    e.valAccuracy = valAccuracy;
    return e;
}

// The start event of an attempt resumed from the checkpoint of step `atStep` (and epoch `atEpoch`).
inline MetricEvent resumedStart(qint64 atStep, qint64 atEpoch = kNoCount)
{
    MetricEvent e;
    e.kind = MetricEventKind::Start;
    e.resumed = true;
    e.resumeStep = atStep;
    e.resumeEpoch = atEpoch;
    return e;
}

// An event as the tests' tables write it: "Step epoch=1 step=19 loss=0.8", "Epoch epoch=2 val_loss=0.4 val_f1=0.5".
inline QString describeEvent(const MetricEvent &e)
{
    QStringList parts{e.kind == MetricEventKind::Epoch ? QStringLiteral("Epoch") : QStringLiteral("Step")};
    const auto count = [&parts](QStringView name, qint64 value) {
        if (MetricEvent::has(value))
            parts.append(name + u'=' + QString::number(value));
    };
    const auto number = [&parts](QStringView name, double value) {
        if (MetricEvent::has(value))
            parts.append(name + u'=' + QString::number(value));
    };
    count(u"epoch", e.epoch);
    count(u"step", e.step);
    number(u"loss", e.loss);
    number(u"lr", e.lr);
    number(u"val_loss", e.valLoss);
    number(u"val_acc", e.valAccuracy);
    for (const NamedValue &extra : e.extras)
        number(extra.name, extra.value);
    return parts.join(u' ');
}

inline QStringList describeEvents(const QList<MetricEvent> &events)
{
    QStringList described;
    for (const MetricEvent &e : events)
        described.append(describeEvent(e));
    return described;
}

} // namespace torchdeck::testing
