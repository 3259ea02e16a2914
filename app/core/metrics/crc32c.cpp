#include "core/metrics/crc32c.h"

#include <array>

namespace torchdeck {

namespace {

constexpr std::array<quint32, 256> makeTable()
{
    std::array<quint32, 256> table{};
    for (quint32 i = 0; i < 256; ++i) {
        quint32 crc = i;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        table[i] = crc;
    }
    return table;
}

constexpr std::array<quint32, 256> kTable = makeTable();

} // namespace

quint32 crc32c(QByteArrayView data)
{
    quint32 crc = 0xFFFFFFFFu;
    for (const char c : data)
        crc = kTable[(crc ^ static_cast<quint8>(c)) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

quint32 maskedCrc32c(QByteArrayView data)
{
    const quint32 crc = crc32c(data);
    return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

} // namespace torchdeck
