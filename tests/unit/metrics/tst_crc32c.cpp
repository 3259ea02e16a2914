#include "core/metrics/crc32c.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestCrc32c : public QObject {
    Q_OBJECT
private slots:
    void vectors_data();
    void vectors();
    void masked();
};

void TestCrc32c::vectors_data()
{
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<quint32>("crc");
    // RFC 3720 (iSCSI) B.4 and the usual check value.
    QTest::addRow("empty") << QByteArray() << 0x00000000u;
    QTest::addRow("123456789") << QByteArray("123456789") << 0xE3069283u;
    QTest::addRow("32 zeros") << QByteArray(32, '\0') << 0x8A9136AAu;
    QTest::addRow("32 0xff") << QByteArray(32, '\xff') << 0x62A8AB43u;
    QByteArray ascending;
    for (char c = 0; c < 32; ++c)
        ascending += c;
    QTest::addRow("ascending") << ascending << 0x46DD794Eu;
}

void TestCrc32c::vectors()
{
    QFETCH(QByteArray, data);
    QFETCH(quint32, crc);
    QCOMPARE(crc32c(data), crc);
}

void TestCrc32c::masked()
{
    // Every TensorBoard event file starts with the 8-byte length 24 and this masked CRC of it.
    const QByteArray length("\x18\0\0\0\0\0\0\0", 8);
    QCOMPARE(maskedCrc32c(length), 0x224B7FA3u);
    const quint32 crc = crc32c("123456789");
    QCOMPARE(maskedCrc32c("123456789"), ((crc >> 15) | (crc << 17)) + 0xA282EAD8u);
}

TORCHDECK_TEST_MAIN(TestCrc32c)
#include "tst_crc32c.moc"
