// libFuzzer: the files a job's own logger writes and torchdeck reads back: TensorBoard event files (whole, and
// as they grow: in chunks, each read passing the bytes from offset() on, the way RunTracker tails them) and
// Lightning's metrics.csv (from row 0 and from a row the input chooses); also the bytes as one framed Event.
// No crash, no sanitizer report, chunked reading gives what reading all at once gives, and a later row
// count changes no row.
#include "core/metrics/crc32c.h"
#include "core/metrics/lightningcsv.h"
#include "core/metrics/scalarmapping.h"
#include "core/metrics/tfeventreader.h"

#include <QtEndian>
#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace torchdeck;

namespace {

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

bool same(const QList<TfScalar> &a, const QList<TfScalar> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const TfScalar &x, const TfScalar &y) {
        return x.tag == y.tag && x.step == y.step && sameBits(x.wallTime, y.wallTime) && sameBits(x.value, y.value);
    });
}

bool sameState(const TfEventReader &a, const TfEventReader &b)
{
    return a.offset() == b.offset() && a.records() == b.records() && a.corrupt() == b.corrupt() &&
           a.malformed() == b.malformed() && a.problem() == b.problem() && a.fileVersion() == b.fileVersion();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));

    TfEventReader whole;
    const QList<TfScalar> all = whole.feed(input);
    // The file as it grows in steps whose size the input's first byte chooses. A record not complete at a
    // step's end stays unread: the next read passes its bytes again, from offset() on.
    const qsizetype chunk = size > 0 ? 1 + data[0] % 64 : 1;
    TfEventReader pieces;
    QList<TfScalar> got;
    qsizetype end = 0;
    do {
        end = std::min(end + chunk, input.size());
        if (pieces.offset() < 0 || pieces.offset() > end)
            std::abort();
        got += pieces.feed(input.sliced(qsizetype(pieces.offset()), end - qsizetype(pieces.offset())));
    } while (end < input.size());
    if (!same(got, all) || !sameState(pieces, whole))
        std::abort();
    tensorBoardEvents(all);

    // The bytes as the Event of one record with valid checksums: a mutation inside a record of the seeds
    // only fails its CRC, and the Event parser would see little else.
    QByteArray record(8 + 4 + input.size() + 4, '\0'); // length, its CRC, the data, its CRC
    qToLittleEndian<quint64>(quint64(size), record.data());
    qToLittleEndian<quint32>(maskedCrc32c(QByteArrayView(record).first(8)), record.data() + 8);
    if (size > 0)
        std::memcpy(record.data() + 12, data, size);
    qToLittleEndian<quint32>(maskedCrc32c(input), record.data() + 12 + input.size());
    TfEventReader framed;
    const QList<TfScalar> scalars = framed.feed(record);
    if (framed.offset() != record.size() || framed.records() != 1 || framed.corrupt() != 0)
        std::abort();
    tensorBoardEvents(scalars);

    // Lightning's CSV: the bytes are the whole file; the rows already read come from the last byte.
    const QByteArray file = QByteArray::fromRawData(input.data(), input.size());
    LightningCsvReader first;
    const QList<MetricEvent> events = first.read(file, 0);
    const qsizetype rowsAlreadyRead = size > 0 ? data[size - 1] % 32 : 0;
    LightningCsvReader later;
    const QList<MetricEvent> rest = later.read(file, rowsAlreadyRead);
    if (later.rows() != first.rows() || rest.size() > events.size() || later.malformed() > first.malformed())
        std::abort();
    return 0;
}
