#include "core/metrics/logprefix.h"

#include <QRegularExpression>

namespace torchdeck {

namespace {

// One label at the start of the rest of a line; group 1 holds the rank where the label names one.
const QRegularExpression &labelAtStart()
{
    static const QRegularExpression label(QStringLiteral(
        R"(^\s*(?:)"
        R"((\d{1,6}): )"                                                               // srun --label
        R"(|\[(?:rank|default|Rank )(\d{1,6})\]:? ?)"                                  // torchrun --tee, DeepSpeed
        R"(|\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?)" // ISO date and time
        R"(|\[?\d\d[-/]\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?\]?)"                            // month-day time
        R"(|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?)"                                         // time of day
        R"(|[\w.\-]{1,40}\|(?= ?\d\d[-/]\d\d ))"                                       // "name|" before a timestamp
        R"(|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL):[\w.\-]*:)"         // Python logging's default format
        R"(|\[?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\]?(?=[\s|:\-]))" // a level
        R"(|[|:\-]\s)"                                                     // the separator after one
        R"())"));
    return label;
}

} // namespace

std::optional<QStringView> ownLogText(QStringView line)
{
    QStringView rest = line;
    for (int labels = 0; labels < 12; ++labels) {
        const QRegularExpressionMatch m = labelAtStart().match(rest);
        if (!m.hasMatch() || m.capturedLength(0) == 0)
            break;
        const QStringView rank = m.hasCaptured(1) ? m.capturedView(1) : m.capturedView(2);
        if (!rank.isEmpty() && rank.toInt() != 0)
            return std::nullopt;
        rest = rest.mid(m.capturedEnd(0));
    }
    return rest.trimmed();
}

} // namespace torchdeck
