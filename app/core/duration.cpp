#include "core/duration.h"

#include <cmath>

namespace torchdeck {

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return {};
    const qint64 s = std::llround(seconds);
    const auto two = [](qint64 v) { return QString::number(v).rightJustified(2, u'0'); };
    if (s < 60)
        return QString(QString::number(s) + u's');
    if (s < 3600)
        return QString(QString::number(s / 60) + u'm' + two(s % 60) + u's');
    if (s < 86400)
        return QString(QString::number(s / 3600) + u'h' + two(s / 60 % 60) + u'm');
    return QString(QString::number(s / 86400) + u'd' + two(s / 3600 % 24) + u'h');
}

std::optional<qint64> parseDuration(const QString &text)
{
    static const QString units = QStringLiteral("dhms");
    static const qint64 scale[] = {86400, 3600, 60, 1};
    const QString t = text.trimmed().toLower();
    bool plain = false;
    if (const qint64 seconds = t.toLongLong(&plain); plain)
        return seconds > 0 ? std::optional<qint64>(seconds) : std::nullopt;
    qint64 total = 0;
    qsizetype next = 0; // the first unit still allowed: each once, largest first
    QString digits;
    for (const QChar c : t) {
        if (c.isDigit()) {
            digits += c;
            continue;
        }
        const qsizetype unit = units.indexOf(c, next);
        if (unit < 0 || digits.isEmpty() || digits.size() > 9)
            return std::nullopt;
        total += digits.toLongLong() * scale[unit];
        digits.clear();
        next = unit + 1;
    }
    if (!digits.isEmpty() || total <= 0)
        return std::nullopt;
    return total;
}

} // namespace torchdeck
