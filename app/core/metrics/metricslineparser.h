#pragma once

#include "core/metrics/metricevent.h"

#include <QByteArrayView>
#include <QString>
#include <memory>

namespace torchdeck {

enum class MetricsLineStatus : quint8 {
    Event,         // `event` holds it
    Blank,         // empty or whitespace only
    UnknownEvent,  // a valid line of an event this reader does not know: skipped
    FutureVersion, // schema version newer than kMetricsSchemaVersion: skipped
    Malformed,     // not JSON, not an object, or a required field missing: `error` says why
};

inline constexpr int kMetricsSchemaVersion = 1;

struct ParsedMetricsLine {
    MetricsLineStatus status = MetricsLineStatus::Blank;
    MetricEvent event;
    QString error;
};

// Parses lines of the JSON Lines metrics contract with simdjson's On Demand API. Keep one per thread and
// reuse it: the parser's buffers are what makes a line cost a fraction of a microsecond.
class MetricsLineParser {
public:
    MetricsLineParser();
    ~MetricsLineParser();
    MetricsLineParser(const MetricsLineParser &) = delete;
    MetricsLineParser &operator=(const MetricsLineParser &) = delete;

    ParsedMetricsLine parse(QByteArrayView line);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// One line with this thread's parser.
ParsedMetricsLine parseMetricsLine(QByteArrayView line);

} // namespace torchdeck
