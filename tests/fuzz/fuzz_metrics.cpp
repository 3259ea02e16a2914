// libFuzzer: what jobs write and torchdeck reads back: metrics lines (JSON Lines, in chunks of any size, torn
// lines included) and plain log lines through the built-in patterns. No crash, no sanitizer report, and
// chunked reading gives what reading all at once gives.
#include "core/metrics/metricsreader.h"

#include <cstdlib>

using namespace torchdeck;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    MetricsReader whole(MetricsReader::Format::JsonLines, 0);
    QList<MetricEvent> all = whole.feed(input);
    all += whole.finish();
    // The same bytes in chunks whose sizes the input's first byte chooses.
    const qsizetype chunk = size > 0 ? 1 + data[0] % 64 : 1;
    MetricsReader pieces(MetricsReader::Format::JsonLines, 0);
    QList<MetricEvent> got;
    for (qsizetype at = 0; at < input.size(); at += chunk)
        got += pieces.feed(input.sliced(at, std::min(chunk, input.size() - at)));
    got += pieces.finish();
    if (got.size() != all.size() || pieces.offset() != whole.offset())
        std::abort();
    MetricsReader logs(MetricsReader::Format::LogPatterns, 0);
    logs.feed(input);
    logs.finish();
    return 0;
}
