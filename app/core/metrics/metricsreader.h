#pragma once

#include "core/metrics/lineassembler.h"
#include "core/metrics/metricevent.h"
#include "core/metrics/metricslineparser.h"
#include "core/metrics/patternparser.h"

#include <QList>

namespace torchdeck {

struct IngestCounts {
    qint64 lines = 0;
    qint64 events = 0;
    qint64 blank = 0;
    qint64 unknownEvents = 0;  // JSON: valid lines of events this version does not know
    qint64 futureVersions = 0; // JSON: lines of a newer schema version
    qint64 malformed = 0;      // JSON: broken lines
    qint64 unmatched = 0;      // log patterns: lines no pattern matched (most of a log)
};

struct MalformedLine {
    qint64 offset = 0; // file offset of the line's first byte
    QString error;
    QByteArray excerpt; // the line's first bytes
};

// One tailed file turned into events: bytes in, events of complete lines out, with counts of what was
// skipped. offset() is where a tail resumes; store it together with the events it produced.
class MetricsReader {
public:
    enum class Format { JsonLines, LogPatterns };

    explicit MetricsReader(Format format = Format::JsonLines, qint64 offset = 0);

    Format format() const { return m_format; }
    PatternParser &patterns() { return m_patterns; }

    QList<MetricEvent> feed(QByteArrayView chunk);
    // The stream ended (the job is over): a torn last line is parsed as it is.
    QList<MetricEvent> finish();
    // The file was truncated or replaced: start again at `offset`, counts kept.
    void reset(qint64 offset = 0);

    qint64 offset() const { return m_lines.offset(); }
    const IngestCounts &counts() const { return m_counts; }
    // The latest malformed lines, oldest first (at most kKeptMalformed).
    const QList<MalformedLine> &malformedLines() const { return m_malformed; }
    static constexpr qsizetype kKeptMalformed = 20;

private:
    void take(QByteArrayView line, qint64 lineOffset, QList<MetricEvent> *events);

    Format m_format;
    LineAssembler m_lines;
    MetricsLineParser m_json;
    PatternParser m_patterns;
    IngestCounts m_counts;
    QList<MalformedLine> m_malformed;
};

} // namespace torchdeck
