#include "core/metrics/logcontext.h"

#include "core/coretr.h"

#include <algorithm>
#include <cmath>

namespace torchdeck {

namespace {
constexpr double kMaxEpoch = 1e9;
}

bool LineReading::hasValues() const
{
    return MetricEvent::has(loss) || MetricEvent::has(epochLoss) || MetricEvent::has(valLoss) ||
           MetricEvent::has(valAccuracy) || MetricEvent::has(lr) || MetricEvent::has(samplesPerSecond) ||
           !extras.isEmpty() || !trainExtras.isEmpty() || nonFinite;
}

bool LineReading::hasEpochValues() const
{
    return MetricEvent::has(epochLoss) || MetricEvent::has(valLoss) || MetricEvent::has(valAccuracy);
}

qint64 LogContext::epochOf(const LineReading &line)
{
    if (!MetricEvent::has(line.epoch) || line.epoch < 0 || line.epoch > kMaxEpoch)
        return m_epoch;
    qint64 epoch = kNoCount;
    if (line.fractionalEpoch) {
        // Hugging Face's 'epoch': 0.5 is half way through the first epoch; 1.0 its end.
        epoch = std::max<qint64>(1, qint64(std::ceil(line.epoch - 1e-9)));
    } else {
        int base = line.epochBase;
        if (base < 0) {
            if (m_base < 0)
                m_base = line.epoch < 0.5 ? 0 : 1;
            base = m_base;
        }
        epoch = std::llround(line.epoch) + 1 - base;
    }
    if (epoch != m_epoch) {
        m_step = m_epochStep = m_steps = kNoCount;
        m_seconds = kNoValue;
    }
    m_epoch = epoch;
    return epoch;
}

QList<MetricEvent> LogContext::take(const LineReading &line, QString *note)
{
    const auto say = [note](const QString &text) {
        if (note)
            *note = text;
    };
    QList<MetricEvent> events;
    if (line.summary) {
        say(core::Tr::tr("a summary of the whole run, not plotted"));
        return events;
    }
    const qint64 epoch = epochOf(line);
    if (line.epochs >= 0)
        m_epochs = line.epochs;
    qint64 step = line.step;
    qint64 epochStep = line.epochStep;
    qint64 steps = line.stepsPerEpoch;
    MetricEvent base;
    base.epoch = epoch;
    base.epochs = m_epochs;
    base.epochFromZero = line.epochBase < 0 && m_base == 0 && MetricEvent::has(epoch);

    if (!line.hasValues()) { // where we are, for the lines after it
        // What it set, for a person: "context: epoch 3/10, step 100/391 of the epoch".
        QStringList set;
        if (epoch >= 1 && MetricEvent::has(line.epoch))
            set.append(m_epochs >= 0 ? core::Tr::tr("epoch %1/%2").arg(epoch).arg(m_epochs)
                                     : core::Tr::tr("epoch %1").arg(epoch));
        // A bare "125/375" (a progress bar alone) is no context: only a line that names its epoch or step is.
        if ((step >= 0 || epochStep >= 0) && (MetricEvent::has(line.epoch) || step >= 0)) {
            m_step = step;
            m_epochStep = epochStep;
            m_steps = steps;
            if (step >= 0)
                set.append(core::Tr::tr("step %1").arg(step));
            else
                set.append(steps > 0 ? core::Tr::tr("step %1/%2 of the epoch").arg(epochStep).arg(steps)
                                     : core::Tr::tr("step %1 of the epoch").arg(epochStep));
        }
        if (MetricEvent::has(line.seconds)) {
            m_seconds = line.seconds;
            set.append(core::Tr::tr("%1 s").arg(line.seconds));
        }
        if (MetricEvent::has(line.seconds) && epoch >= 1) {
            MetricEvent e = base;
            e.kind = MetricEventKind::Epoch;
            e.seconds = line.seconds;
            events.append(e);
        }
        say(set.isEmpty() ? core::Tr::tr("context") : core::Tr::tr("context: %1").arg(set.join(QStringLiteral(", "))));
        return events;
    }
    if (line.validationPass) {
        if (epochStep >= 0 && steps > 0 && epochStep < steps) {
            say(core::Tr::tr("a validation pass in progress (its last line gives the epoch's values)"));
            return events;
        }
        if (epoch < 1) {
            say(core::Tr::tr("no epoch to place it"));
            return events;
        }
        MetricEvent e = base;
        e.kind = MetricEventKind::Epoch;
        e.valLoss = line.valLoss;
        e.valAccuracy = line.valAccuracy;
        e.extras = line.extras;
        events.append(e);
        return events;
    }
    if (step < 0 && epochStep < 0 && (m_step >= 0 || m_epochStep >= 0)) {
        step = m_step;
        epochStep = m_epochStep;
        steps = m_steps;
    }
    if (step < 0 && epochStep >= 0 && steps > 0 && epoch >= 1)
        step = (epoch - 1) * steps + epochStep;
    const bool position = step >= 0 || epochStep >= 0;
    const bool stepValues = MetricEvent::has(line.loss) || MetricEvent::has(line.lr) ||
                            MetricEvent::has(line.samplesPerSecond) || !line.trainExtras.isEmpty() ||
                            (!line.extras.isEmpty() && !line.hasEpochValues());
    const bool stepLine = !line.epochSummary &&
                          (position || line.fractionalEpoch || epoch < 1 ||
                           (!MetricEvent::has(line.epoch) && !line.hasEpochValues() && !MetricEvent::has(m_seconds)));
    if (stepLine && stepValues) {
        MetricEvent s = base;
        s.kind = MetricEventKind::Step;
        s.epochStep = epochStep;
        s.stepsPerEpoch = steps;
        if (step < 0) {
            const bool sameFraction = line.fractionalEpoch && line.epoch == m_lastFraction;
            step = sameFraction ? m_counted : m_counted + 1;
            s.stepCounted = true;
        }
        m_lastFraction = line.fractionalEpoch ? line.epoch : kNoValue;
        m_counted = std::max(m_counted, step);
        s.step = step;
        s.loss = line.loss;
        s.lr = line.lr;
        s.samplesPerSecond = line.samplesPerSecond;
        s.extras = line.trainExtras;
        if (!line.hasEpochValues())
            s.extras += line.extras;
        events.append(s);
        const bool lastOfEpoch = epochStep >= 0 && steps > 0 && epochStep >= steps;
        const bool summary = lastOfEpoch && (line.progressBar || line.hasEpochValues());
        if (epoch >= 1 && (summary || (!position && line.hasEpochValues()))) {
            MetricEvent e = base;
            e.kind = MetricEventKind::Epoch;
            e.step = step;
            e.stepCounted = s.stepCounted;
            // A progress bar's loss at the epoch's last step is its running mean over the epoch.
            e.loss = MetricEvent::has(line.epochLoss) ? line.epochLoss : (summary ? line.loss : kNoValue);
            e.valLoss = line.valLoss;
            e.valAccuracy = line.valAccuracy;
            e.seconds = MetricEvent::has(line.seconds) ? line.seconds : m_seconds;
            if (line.hasEpochValues())
                e.extras = line.extras;
            events.append(e);
        } else if (line.hasEpochValues()) {
            say(core::Tr::tr("its validation values are an earlier epoch's (a progress bar carries them over)"));
        }
        return events;
    }
    if (epoch < 1) {
        say(core::Tr::tr("no epoch or step to place it"));
        return events;
    }
    MetricEvent e = base;
    e.kind = MetricEventKind::Epoch;
    e.step = line.fractionalEpoch ? m_counted : step;
    e.loss = MetricEvent::has(line.epochLoss) ? line.epochLoss : line.loss;
    e.valLoss = line.valLoss;
    e.valAccuracy = line.valAccuracy;
    e.seconds = MetricEvent::has(line.seconds) ? line.seconds : m_seconds;
    e.samplesPerSecond = line.samplesPerSecond;
    e.extras = line.extras;
    events.append(e);
    return events;
}

} // namespace torchdeck
