#include "core/metrics/axisticks.h"

#include <cmath>

namespace torchdeck {

namespace {

struct SiScale {
    double factor = 1;
    const char *suffix = "";
};

SiScale siScale(double magnitude)
{
    static const SiScale scales[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    if (magnitude >= 1e4) {
        for (const SiScale &scale : scales) {
            if (magnitude >= scale.factor * (scale.factor == 1e3 ? 10 : 1))
                return scale;
        }
    }
    return {};
}

// "1e-4", "2.5e-5": mantissa without trailing zeros.
QString exponentLabel(double value)
{
    if (value == 0)
        return QStringLiteral("0");
    const int exponent = int(std::floor(std::log10(std::abs(value)) + 1e-9));
    const double mantissa = value / std::pow(10.0, exponent);
    return QString::number(mantissa, 'g', 3) + QStringLiteral("e") + QString::number(exponent);
}

} // namespace

double roundStep(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double mantissa : {1.0, 2.0, 5.0, 10.0}) {
        if (mantissa * power >= raw * (1 - 1e-9))
            return mantissa * power;
    }
    return 10 * power;
}

QString tickLabel(double value, double step, double axisMagnitude)
{
    if (!std::isfinite(value))
        return QStringLiteral("-");
    if (std::abs(value) < step * 1e-6)
        value = 0; // -0 and rounding noise at zero
    if (axisMagnitude < 1e-3 && value != 0)
        return exponentLabel(value);
    const SiScale scale = siScale(axisMagnitude);
    const double scaledStep = step > 0 ? step / scale.factor : 1;
    const int decimals = std::max(0, int(std::ceil(-std::log10(scaledStep) - 1e-9)));
    // A step of 2.5 needs one decimal more than its power of ten says.
    const double rounded = std::round(scaledStep * std::pow(10.0, decimals));
    const int extra = std::abs(scaledStep * std::pow(10.0, decimals) - rounded) > 1e-6 ? 1 : 0;
    return QString::number(value / scale.factor, 'f', decimals + extra) + QString::fromLatin1(scale.suffix);
}

AxisTicks linearTicks(double min, double max, int maxTicks)
{
    AxisTicks ticks;
    if (!std::isfinite(min) || !std::isfinite(max) || maxTicks < 2)
        return ticks;
    if (max < min)
        std::swap(min, max);
    if (max == min) {
        const double half = min == 0 ? 1 : std::abs(min) * 0.1;
        min -= half;
        max += half;
    }
    // The smallest round step that needs no more than maxTicks ticks.
    const auto ticksAt = [&](double step) {
        QList<double> values;
        const double first = std::ceil(min / step - 1e-9) * step;
        for (int i = 0; first + i * step <= max + step * 1e-9; ++i)
            values.append(first + i * step);
        return values;
    };
    ticks.step = roundStep((max - min) / (2 * maxTicks)); // from below: as many as fit, not one round jump
    ticks.values = ticksAt(ticks.step);
    while (ticks.values.size() > maxTicks) {
        ticks.step = roundStep(ticks.step * 1.001);
        ticks.values = ticksAt(ticks.step);
    }
    const double magnitude = std::max(std::abs(min), std::abs(max));
    for (const double value : std::as_const(ticks.values))
        ticks.labels.append(tickLabel(value, ticks.step, magnitude));
    return ticks;
}

AxisTicks logTicks(double min, double max)
{
    AxisTicks ticks;
    if (!(min > 0) || !std::isfinite(min) || !std::isfinite(max) || max < min)
        return ticks;
    const int low = int(std::floor(std::log10(min) + 1e-9));
    const int high = int(std::ceil(std::log10(max) - 1e-9));
    const bool fewDecades = high - low < 3;
    for (int exponent = low; exponent <= high; ++exponent) {
        const double decade = std::pow(10.0, exponent);
        for (const double mantissa : {1.0, 2.0, 5.0}) {
            if (mantissa != 1 && !fewDecades)
                continue;
            const double value = mantissa * decade;
            if (value >= min * (1 - 1e-9) && value <= max * (1 + 1e-9))
                ticks.values.append(value);
        }
    }
    // Each label as precise as its own value: "0.05", "200k", "1e-4".
    for (const double value : std::as_const(ticks.values))
        ticks.labels.append(tickLabel(value, value, value));
    return ticks;
}

} // namespace torchdeck
