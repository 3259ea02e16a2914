#pragma once

#include <QByteArrayView>

namespace torchdeck {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum of TFRecord framing.
quint32 crc32c(QByteArrayView data);

// TensorFlow's masked CRC as stored in TFRecord files: a CRC over data that holds CRCs is weak, so the
// stored value is rotated and offset.
quint32 maskedCrc32c(QByteArrayView data);

} // namespace torchdeck
