#include "term/render/numberformat.h"

#include "core/duration.h"

#include <algorithm>
#include <cmath>

namespace torchdeck::term {

namespace {

const QString kUnknown = QStringLiteral("-");

QString stripZeros(QString text)
{
    if (!text.contains(u'.'))
        return text;
    while (text.endsWith(u'0'))
        text.chop(1);
    if (text.endsWith(u'.'))
        text.chop(1);
    return text;
}

QString scientific(double value, int significant)
{
    int exponent = static_cast<int>(std::floor(std::log10(std::abs(value))));
    double mantissa = value / std::pow(10.0, exponent);
    QString digits = stripZeros(QString::number(mantissa, 'f', significant - 1));
    if (digits == u"10" || digits == u"-10") { // rounding carried into the next power of ten
        ++exponent;
        mantissa /= 10;
        digits = stripZeros(QString::number(mantissa, 'f', significant - 1));
    }
    return QString(digits + u'e' + QString::number(exponent));
}

} // namespace

QString formatCompact(double value, int significant)
{
    if (!std::isfinite(value))
        return kUnknown;
    if (value == 0)
        return QStringLiteral("0");
    significant = std::max(significant, 1);
    const double magnitude = std::abs(value);
    if (magnitude < 1e-2 || magnitude >= 1e6)
        return scientific(value, std::max(2, significant - 1)); // "1.2e-3": the exponent takes room
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const int decimals = std::max(0, significant - 1 - exponent);
    const QString text = stripZeros(QString::number(value, 'f', decimals));
    return text == u"-0" ? QStringLiteral("0") : text;
}

QString formatCount(double value)
{
    if (!std::isfinite(value))
        return kUnknown;
    const QString digits = QString::number(std::llround(std::abs(value)));
    QString out = digits;
    if (digits.size() > 5) {
        for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
            out.insert(i, u',');
    }
    return value < 0 ? QString(u'-' + out) : out;
}

QString formatDuration(double seconds)
{
    const QString text = torchdeck::formatDuration(seconds);
    return text.isEmpty() ? kUnknown : text;
}

} // namespace torchdeck::term
