#include "core/metrics/tfeventreader.h"

#include "core/coretr.h"
#include "core/metrics/crc32c.h"

#include <QtEndian>
#include <cstring>
#include <optional>

namespace torchdeck {

namespace {

// std::bit_cast, which C++17 lacks.
template <typename To, typename From> To bitCast(From from)
{
    static_assert(sizeof(To) == sizeof(From));
    To to;
    std::memcpy(&to, &from, sizeof to);
    return to;
}

constexpr qsizetype kLengthBytes = 8;
constexpr qsizetype kCrcBytes = 4;

enum WireType : int { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// The protocol buffer wire format over a bounded view. A read past the end or a broken key sets failed(),
// after which every read returns zero and next() false: callers check failed() once, at the end.
class WireReader {
public:
    explicit WireReader(QByteArrayView data)
        : m_data(data)
    {
    }

    bool failed() const { return m_failed; }

    bool next(quint32 *field, int *wireType)
    {
        if (m_failed || m_pos >= m_data.size())
            return false;
        const quint64 key = varint();
        *field = static_cast<quint32>(key >> 3);
        *wireType = static_cast<int>(key & 7);
        if (key > 0xFFFFFFFFu || *field == 0)
            m_failed = true;
        return !m_failed;
    }

    quint64 varint()
    {
        quint64 value = 0;
        for (int shift = 0; shift < 64 && !m_failed && m_pos < m_data.size(); shift += 7) {
            const auto byte = static_cast<quint8>(m_data[m_pos++]);
            value |= quint64(byte & 0x7F) << shift;
            if (!(byte & 0x80))
                return value;
        }
        m_failed = true; // truncated, or longer than 10 bytes
        return 0;
    }

    template <typename T> T fixed()
    {
        if (m_failed || m_data.size() - m_pos < qsizetype(sizeof(T))) {
            m_failed = true;
            return 0;
        }
        const T value = qFromLittleEndian<T>(m_data.data() + m_pos);
        m_pos += qsizetype(sizeof(T));
        return value;
    }
    quint32 fixed32() { return fixed<quint32>(); }
    quint64 fixed64() { return fixed<quint64>(); }

    QByteArrayView bytes()
    {
        const quint64 size = varint();
        if (m_failed || size > quint64(m_data.size() - m_pos)) {
            m_failed = true;
            return {};
        }
        const QByteArrayView result = m_data.sliced(m_pos, qsizetype(size));
        m_pos += qsizetype(size);
        return result;
    }

    void skip(int wireType)
    {
        switch (wireType) {
        case Varint:
            varint();
            return;
        case Fixed64:
            fixed64();
            return;
        case LengthDelimited:
            bytes();
            return;
        case Fixed32:
            fixed32();
            return;
        default: // groups (deprecated) and invalid types cannot be skipped safely
            m_failed = true;
        }
    }

private:
    QByteArrayView m_data;
    qsizetype m_pos = 0;
    bool m_failed = false;
};

// TensorShapeProto { repeated Dim dim = 2; } Dim { int64 size = 1; }: a scalar has no dimension of a size
// other than 1.
bool isScalarShape(QByteArrayView shape, bool *ok)
{
    WireReader r(shape);
    bool scalar = true;
    quint32 field = 0;
    int type = 0;
    while (r.next(&field, &type)) {
        if (field != 2 || type != LengthDelimited) {
            r.skip(type);
            continue;
        }
        WireReader dim(r.bytes());
        qint64 size = 0;
        while (dim.next(&field, &type)) {
            if (field == 1 && type == Varint)
                size = qint64(dim.varint());
            else
                dim.skip(type);
        }
        scalar = scalar && size == 1;
        *ok = *ok && !dim.failed();
    }
    *ok = *ok && !r.failed();
    return scalar;
}

// Repeated float_val / double_val: one value, or packed into a length-delimited run.
template <typename Bits> void firstOf(WireReader &r, int type, std::optional<double> *first, bool *ok)
{
    using Value = std::conditional_t<sizeof(Bits) == 4, float, double>;
    constexpr int kUnpacked = sizeof(Bits) == 4 ? Fixed32 : Fixed64;
    if (type == kUnpacked) {
        const auto value = bitCast<Value>(r.fixed<Bits>());
        if (!*first)
            *first = value;
    } else if (type == LengthDelimited) {
        const QByteArrayView packed = r.bytes();
        if (packed.size() % qsizetype(sizeof(Bits)) != 0)
            *ok = false;
        else if (!packed.isEmpty() && !*first)
            *first = bitCast<Value>(qFromLittleEndian<Bits>(packed.data()));
    } else {
        r.skip(type);
    }
}

// TensorProto { int32 dtype = 1; TensorShapeProto tensor_shape = 2; bytes tensor_content = 4;
// repeated float float_val = 5; repeated double double_val = 6; }
std::optional<double> tensorScalar(QByteArrayView tensor, bool *ok)
{
    constexpr quint64 kDtFloat = 1;
    constexpr quint64 kDtDouble = 2;
    WireReader r(tensor);
    quint64 dtype = 0;
    bool scalar = true;
    QByteArrayView content;
    std::optional<double> firstFloat;
    std::optional<double> firstDouble;
    quint32 field = 0;
    int type = 0;
    while (r.next(&field, &type)) {
        if (field == 1 && type == Varint)
            dtype = r.varint();
        else if (field == 2 && type == LengthDelimited)
            scalar = isScalarShape(r.bytes(), ok);
        else if (field == 4 && type == LengthDelimited)
            content = r.bytes();
        else if (field == 5)
            firstOf<quint32>(r, type, &firstFloat, ok);
        else if (field == 6)
            firstOf<quint64>(r, type, &firstDouble, ok);
        else
            r.skip(type);
    }
    *ok = *ok && !r.failed();
    if (!*ok || !scalar)
        return std::nullopt; // histograms, images, text: tensors of more than one element
    if (firstFloat)
        return firstFloat;
    if (firstDouble)
        return firstDouble;
    if (dtype == kDtFloat && content.size() == 4)
        return bitCast<float>(qFromLittleEndian<quint32>(content.data()));
    if (dtype == kDtDouble && content.size() == 8)
        return bitCast<double>(qFromLittleEndian<quint64>(content.data()));
    return std::nullopt;
}

enum class ValueKind { Scalar, Other, Malformed };

// Summary.Value { string tag = 1; float simple_value = 2; TensorProto tensor = 8; }
ValueKind parseValue(QByteArrayView data, TfScalar *scalar)
{
    WireReader r(data);
    std::optional<double> simple;
    std::optional<QByteArrayView> tensor;
    quint32 field = 0;
    int type = 0;
    while (r.next(&field, &type)) {
        if (field == 1 && type == LengthDelimited)
            scalar->tag = QString::fromUtf8(r.bytes());
        else if (field == 2 && type == Fixed32)
            simple = bitCast<float>(r.fixed32());
        else if (field == 8 && type == LengthDelimited)
            tensor = r.bytes();
        else
            r.skip(type);
    }
    bool ok = !r.failed();
    const std::optional<double> value = simple ? simple : tensor && ok ? tensorScalar(*tensor, &ok) : std::nullopt;
    if (!ok)
        return ValueKind::Malformed;
    if (!value || scalar->tag.isEmpty())
        return ValueKind::Other;
    scalar->value = *value;
    return ValueKind::Scalar;
}

} // namespace

TfEventReader::TfEventReader(qint64 offset)
    : m_offset(offset)
{
}

QList<TfScalar> TfEventReader::feed(QByteArrayView bytes)
{
    QList<TfScalar> scalars;
    qsizetype pos = 0;
    while (m_problem.isEmpty() && bytes.size() - pos >= kLengthBytes + kCrcBytes) {
        const QByteArrayView length = bytes.sliced(pos, kLengthBytes);
        if (maskedCrc32c(length) != qFromLittleEndian<quint32>(bytes.data() + pos + kLengthBytes)) {
            ++m_corrupt;
            m_problem =
                core::Tr::tr("The event file is corrupt at byte %1: a record length fails its checksum.").arg(m_offset);
            break;
        }
        const quint64 size = qFromLittleEndian<quint64>(length.data());
        if (size > kMaxRecordBytes) {
            ++m_corrupt;
            m_problem =
                core::Tr::tr("The event file is corrupt at byte %1: a record claims %2 bytes.").arg(m_offset).arg(size);
            break;
        }
        const qsizetype dataPos = pos + kLengthBytes + kCrcBytes;
        const qsizetype recordBytes = kLengthBytes + kCrcBytes + qsizetype(size) + kCrcBytes;
        if (bytes.size() - pos < recordBytes)
            break; // torn: the writer has not finished it, or the caller has not read it all
        const QByteArrayView data = bytes.sliced(dataPos, qsizetype(size));
        if (maskedCrc32c(data) != qFromLittleEndian<quint32>(bytes.data() + dataPos + qsizetype(size))) {
            ++m_corrupt; // framing is intact: only this record is lost
        } else {
            ++m_records;
            if (!parseEvent(data, &scalars))
                ++m_malformed;
        }
        pos += recordBytes;
        m_offset += recordBytes;
    }
    return scalars;
}

// Event { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
// Summary { repeated Value value = 1; }
bool TfEventReader::parseEvent(QByteArrayView data, QList<TfScalar> *scalars)
{
    WireReader r(data);
    double wallTime = kNoValue;
    qint64 step = 0;
    QString fileVersion;
    QList<QByteArrayView> summaries; // a repeated message field: the occurrences merge
    quint32 field = 0;
    int type = 0;
    while (r.next(&field, &type)) {
        if (field == 1 && type == Fixed64)
            wallTime = bitCast<double>(r.fixed64());
        else if (field == 2 && type == Varint)
            step = static_cast<qint64>(r.varint());
        else if (field == 3 && type == LengthDelimited)
            fileVersion = QString::fromUtf8(r.bytes());
        else if (field == 5 && type == LengthDelimited)
            summaries.append(r.bytes());
        else
            r.skip(type);
    }
    if (r.failed())
        return false;
    QList<TfScalar> found;
    for (const QByteArrayView summary : std::as_const(summaries)) {
        WireReader s(summary);
        while (s.next(&field, &type)) {
            if (field != 1 || type != LengthDelimited) {
                s.skip(type);
                continue;
            }
            TfScalar scalar{{}, step, wallTime, kNoValue};
            const QByteArrayView value = s.bytes();
            const ValueKind kind = s.failed() ? ValueKind::Malformed : parseValue(value, &scalar);
            if (kind == ValueKind::Malformed)
                return false;
            if (kind == ValueKind::Scalar)
                found.append(scalar);
        }
        if (s.failed())
            return false;
    }
    if (!fileVersion.isEmpty())
        m_fileVersion = fileVersion;
    scalars->append(found);
    return true;
}

} // namespace torchdeck
