#include "core/metrics/axisticks.h"

#include <QDateTime>
#include <QLocale>
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

constexpr double kTimeSteps[] = {1,    2,    5,    10,    15,    30,    60,    120,    300,    600,   900,
                                 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 432000, 864000};

// The smallest round time step that needs no more than maxTicks ticks over [min, max], the ticks shifted by
// `offset` (a time zone's) so they fall on round clock times.
AxisTicks timeTicks(double min, double max, int maxTicks, double offset)
{
    AxisTicks ticks;
    if (!std::isfinite(min) || !std::isfinite(max) || max <= min || maxTicks < 2)
        return ticks;
    for (const double step : kTimeSteps) {
        ticks.step = step;
        ticks.values.clear();
        const double first = std::ceil((min + offset) / step - 1e-9) * step - offset;
        for (double value = first; value <= max + 1e-9 && ticks.values.size() <= maxTicks; value += step)
            ticks.values.append(value);
        if (ticks.values.size() <= maxTicks)
            break;
    }
    return ticks;
}

} // namespace

AxisTicks durationTicks(double min, double max, int maxTicks)
{
    AxisTicks ticks = timeTicks(min, max, maxTicks, 0);
    // Round ticks read best without their zero parts: "2m", "1h30m", not "2m00s", "1h30m".
    for (const double value : std::as_const(ticks.values)) {
        qint64 left = std::llround(std::abs(value));
        QString label = value < 0 ? QStringLiteral("-") : QString();
        int parts = 0;
        for (const auto &[unit, seconds] : {std::pair{u'd', 86400}, {u'h', 3600}, {u'm', 60}, {u's', 1}}) {
            if (left >= seconds && parts < 2) {
                label += QString::number(left / seconds) + unit;
                left %= seconds;
                ++parts;
            } else if (parts > 0) {
                ++parts; // two adjacent units at most: "1d02h", never "1d00h05m"
            }
        }
        ticks.labels.append(parts == 0 ? QStringLiteral("0") : label);
    }
    return ticks;
}

AxisTicks clockTicks(double min, double max, int maxTicks)
{
    const QDateTime start = QDateTime::fromSecsSinceEpoch(qint64(min));
    AxisTicks ticks = timeTicks(min, max, maxTicks, start.offsetFromUtc());
    const QString format = max - min > 86400 ? QStringLiteral("d MMM HH:mm")
                           : ticks.step < 60 ? QStringLiteral("HH:mm:ss")
                                             : QStringLiteral("HH:mm");
    for (const double value : std::as_const(ticks.values))
        ticks.labels.append(QLocale::c().toString(QDateTime::fromSecsSinceEpoch(qint64(std::llround(value))), format));
    return ticks;
}

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

} // namespace torchdeck
