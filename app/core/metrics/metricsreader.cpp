#include "core/metrics/metricsreader.h"

#include "core/metrics/metricslog.h"

namespace torchdeck {

namespace {
constexpr qsizetype kExcerptBytes = 160;
}

MetricsReader::MetricsReader(Format format, qint64 offset)
    : m_format(format)
    , m_lines(offset)
{
}

QList<MetricEvent> MetricsReader::feed(QByteArrayView chunk)
{
    QList<MetricEvent> events;
    m_lines.append(chunk);
    qint64 lineOffset = m_lines.offset();
    QByteArrayView line;
    while (m_lines.nextLine(&line)) {
        take(line, lineOffset, &events);
        lineOffset = m_lines.offset();
    }
    return events;
}

QList<MetricEvent> MetricsReader::finish()
{
    QList<MetricEvent> events;
    const qint64 lineOffset = m_lines.offset();
    const QByteArray rest = m_lines.takePartial();
    if (!rest.isEmpty())
        take(rest, lineOffset, &events);
    return events;
}

void MetricsReader::reset(qint64 offset)
{
    m_lines.reset(offset);
    m_patterns.resetCounters();
}

void MetricsReader::take(QByteArrayView line, qint64 lineOffset, QList<MetricEvent> *events)
{
    ++m_counts.lines;
    if (m_format == Format::LogPatterns) {
        const QList<MetricEvent> found = m_patterns.parseLine(line);
        if (found.isEmpty())
            ++m_counts.unmatched;
        m_counts.events += found.size();
        events->append(found);
        return;
    }
    ParsedMetricsLine parsed = m_json.parse(line);
    if (parsed.status == MetricsLineStatus::Malformed) {
        // A writer killed mid-line, then appended to again (a requeued attempt): the torn fragment and the
        // next event share a line. The event is whole from its last '{"schema"' on; the fragment is lost.
        const qsizetype glued = QByteArrayView(line).lastIndexOf(QByteArrayView("{\"schema\""));
        if (glued > 0) {
            ParsedMetricsLine tail = m_json.parse(line.sliced(glued));
            if (tail.status == MetricsLineStatus::Event)
                parsed = std::move(tail);
        }
    }
    switch (parsed.status) {
    case MetricsLineStatus::Event:
        ++m_counts.events;
        events->append(std::move(parsed.event));
        return;
    case MetricsLineStatus::Blank:
        ++m_counts.blank;
        return;
    case MetricsLineStatus::UnknownEvent:
        ++m_counts.unknownEvents;
        return;
    case MetricsLineStatus::FutureVersion:
        if (m_counts.futureVersions++ == 0)
            qCInfo(lcMetrics) << "skipping metrics of schema version" << parsed.event.schema;
        return;
    case MetricsLineStatus::Malformed:
        ++m_counts.malformed;
        if (m_malformed.size() == kKeptMalformed)
            m_malformed.removeFirst();
        m_malformed.append({lineOffset, parsed.error, line.first(qMin(line.size(), kExcerptBytes)).toByteArray()});
        qCDebug(lcMetrics) << "malformed metrics line at offset" << lineOffset << ':' << parsed.error;
        return;
    }
}

} // namespace torchdeck
