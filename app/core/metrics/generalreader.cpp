#include "core/metrics/generalreader.h"

#include "core/metrics/logfields.h"
#include "core/metrics/lognames.h"

#include <cmath>

namespace torchdeck {

namespace {

bool isValueRole(LogRole role)
{
    return role == LogRole::Loss || role == LogRole::EpochLoss || role == LogRole::ValLoss ||
           role == LogRole::Accuracy || role == LogRole::ValAccuracy || role == LogRole::Lr;
}

qint64 count(double value)
{
    return std::isfinite(value) && value >= 0 && value < 9e15 ? std::llround(value) : kNoCount;
}

} // namespace

std::optional<LineReading> generalReading(QStringView text)
{
    const LogFields f = logFields(text);
    const bool validation = f.section == u"valid";
    LineReading r;
    r.progressBar = f.progressBar;
    r.samplesPerSecond = f.samplesPerSecond;
    bool known = MetricEvent::has(f.samplesPerSecond);
    double seconds = 0;
    QList<NamedValue> times;
    QList<NamedValue> accuracies;
    for (const LogField &field : f.fields) {
        const LogRole role = logRole(field.name, validation);
        // A validation pass prints its running averages beside each batch's values: they are its result.
        double value = validation && MetricEvent::has(field.average) ? field.average : field.value;
        if (isValueRole(role) && field.total > 0)
            value /= double(field.total); // "Accuracy: 9740/10000"
        if (isValueRole(role) && !std::isfinite(value))
            r.nonFinite = true;
        // A value, an epoch or a step make a line the reader's; names it does not know ride along.
        known = known || (role != LogRole::Extra && role != LogRole::Ignore && role != LogRole::Batch);
        switch (role) {
        case LogRole::Ignore:
            break;
        case LogRole::Summary:
            r.summary = true;
            break;
        case LogRole::Epoch:
            r.epoch = field.value;
            r.fractionalEpoch = field.decimal && field.total <= 0;
            if (field.total > 0)
                r.epochs = field.total;
            break;
        case LogRole::Step:
            if (field.total > 0) {
                r.epochStep = count(field.value);
                r.stepsPerEpoch = field.total;
            } else {
                r.step = count(field.value);
            }
            break;
        case LogRole::Batch:
            r.epochStep = count(field.value);
            r.stepsPerEpoch = field.total > 0 ? field.total : kNoCount;
            break;
        case LogRole::Loss:
            r.loss = value;
            break;
        case LogRole::EpochLoss:
            r.epochLoss = value;
            break;
        case LogRole::ValLoss:
            r.valLoss = value;
            break;
        case LogRole::Accuracy:
            accuracies.append({field.name, value});
            break;
        case LogRole::ValAccuracy:
            r.valAccuracy = value;
            break;
        case LogRole::Lr:
            r.lr = value;
            break;
        case LogRole::Seconds:
            seconds += value;
            times.append({field.name, value});
            break;
        case LogRole::SamplesPerSecond:
            r.samplesPerSecond = value;
            break;
        case LogRole::Extra:
            r.extras.append({field.name, value});
            break;
        }
    }
    if (f.pairEpoch >= 0) { // "[1,  2000] loss: ..."
        r.epoch = double(f.pairEpoch);
        r.epochStep = f.pairBatch;
        known = true;
    }
    if (f.done >= 0 && r.epochStep < 0 && r.step < 0) {
        r.epochStep = f.done;
        r.stepsPerEpoch = f.total;
    }
    const bool position = r.epochStep >= 0 || r.step >= 0;
    r.validationPass = validation && r.epochStep >= 0 && r.step < 0;
    r.epochSummary = !f.section.isEmpty() && MetricEvent::has(r.epoch) && r.epochStep < 0 && !f.dict;
    // On a training step's line an accuracy and a time are that batch's: series of their own by step.
    if (position && !validation) {
        r.trainExtras = accuracies + times;
    } else {
        for (const NamedValue &accuracy : std::as_const(accuracies)) {
            if (!MetricEvent::has(r.valAccuracy))
                r.valAccuracy = accuracy.value;
            else
                r.extras.append(accuracy);
        }
        if (!times.isEmpty())
            r.seconds = seconds;
    }
    if (!known)
        return std::nullopt;
    return r;
}

} // namespace torchdeck
