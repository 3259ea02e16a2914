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

} // namespace torchdeck
