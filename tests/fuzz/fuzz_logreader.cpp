// libFuzzer: the general reader of users' log lines (issue 26) on any bytes: every line through the patterns,
// the general reader and the context, and the explanation of the whole log. No crash, no sanitizer report, and
// an explanation never gives more events than the lines did.
#include "core/metrics/logexplain.h"
#include "core/metrics/logmetrics.h"

#include <cstdlib>

using namespace torchdeck;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    PatternParser parser;
    qsizetype events = 0;
    for (const QByteArrayView line : QByteArray::fromRawData(input.data(), input.size()).split('\n'))
        events += parser.parseLine(line).size();
    qsizetype explained = 0;
    for (const ExplainedLine &line : explainLog(input, jobLogPatterns({})))
        explained += line.explanation.events.size();
    if (explained > events)
        std::abort();
    return 0;
}
