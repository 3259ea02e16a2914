#include "core/jobs/walltime.h"

#include <QStringList>
#include <limits>

namespace torchdeck {

namespace {

constexpr qint64 kMinute = 60;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;
// A year of wall time is far beyond any scheduler's limit and keeps every sum far from overflow.
constexpr qint64 kMaxSeconds = 366 * kDay;

// A field of one or more ASCII digits (no sign, no spaces), below `limit`.
std::optional<qint64> field(const QString &text, qint64 limit)
{
    if (text.isEmpty() || text.size() > 9)
        return std::nullopt;
    qint64 value = 0;
    for (const QChar c : text) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        value = value * 10 + (c.unicode() - u'0');
    }
    if (value >= limit)
        return std::nullopt;
    return value;
}

QString twoDigits(qint64 value)
{
    return QStringLiteral("%1").arg(value, 2, 10, QLatin1Char('0'));
}

} // namespace

std::optional<qint64> parseWallTime(const QString &text)
{
    constexpr qint64 unbounded = std::numeric_limits<qint64>::max();
    qint64 days = 0;
    QString clock = text;
    const qsizetype dash = text.indexOf(u'-');
    if (dash >= 0) {
        const auto d = field(text.left(dash), unbounded);
        if (!d)
            return std::nullopt;
        days = *d;
        clock = text.mid(dash + 1);
    }
    const QStringList parts = clock.split(u':');
    if (parts.size() > 3)
        return std::nullopt;
    qint64 seconds = 0;
    if (dash >= 0) {
        // D-HH[:MM[:SS]]: hours come first.
        const auto h = field(parts.value(0), 24);
        const auto m = parts.size() > 1 ? field(parts[1], 60) : std::optional<qint64>(0);
        const auto s = parts.size() > 2 ? field(parts[2], 60) : std::optional<qint64>(0);
        if (!h || !m || !s)
            return std::nullopt;
        seconds = days * kDay + *h * kHour + *m * kMinute + *s;
    } else if (parts.size() == 1) {
        const auto m = field(parts[0], unbounded);
        if (!m || *m > kMaxSeconds / kMinute)
            return std::nullopt;
        seconds = *m * kMinute;
    } else if (parts.size() == 2) {
        const auto m = field(parts[0], unbounded);
        const auto s = field(parts[1], 60);
        if (!m || !s || *m > kMaxSeconds / kMinute)
            return std::nullopt;
        seconds = *m * kMinute + *s;
    } else {
        const auto h = field(parts[0], unbounded);
        const auto m = field(parts[1], 60);
        const auto s = field(parts[2], 60);
        if (!h || !m || !s || *h > kMaxSeconds / kHour)
            return std::nullopt;
        seconds = *h * kHour + *m * kMinute + *s;
    }
    if (days > kMaxSeconds / kDay || seconds <= 0 || seconds > kMaxSeconds)
        return std::nullopt;
    return seconds;
}

QString formatSlurmWallTime(qint64 seconds)
{
    const qint64 days = seconds / kDay;
    const qint64 rest = seconds % kDay;
    const QString clock =
        twoDigits(rest / kHour) + u':' + twoDigits(rest % kHour / kMinute) + u':' + twoDigits(rest % kMinute);
    return days > 0 ? QString::number(days) + u'-' + clock : clock;
}

QString formatPbsWallTime(qint64 seconds)
{
    return twoDigits(seconds / kHour) + u':' + twoDigits(seconds % kHour / kMinute) + u':' +
           twoDigits(seconds % kMinute);
}

} // namespace torchdeck
