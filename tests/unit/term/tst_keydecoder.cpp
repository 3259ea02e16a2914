#include "term/console/keydecoder.h"
#include "testmain.h"

#include <QRandomGenerator>
#include <QTest>

using namespace torchdeck::term;

namespace {

Key key(Key::Code code)
{
    return Key{code};
}

Key ch(char32_t c)
{
    return Key::character(c);
}

// Decodes the bytes in pieces of `chunk` bytes (0: at once), then flushes.
QList<Key> decode(const QByteArray &bytes, int chunk)
{
    KeyDecoder d;
    QList<Key> keys;
    if (chunk == 0) {
        keys += d.feed(bytes);
    } else {
        for (qsizetype i = 0; i < bytes.size(); i += chunk)
            keys += d.feed(QByteArrayView(bytes).sliced(i, std::min<qsizetype>(chunk, bytes.size() - i)));
    }
    return keys + d.flush();
}

} // namespace

namespace QTest {
template <> char *toString(const QList<Key> &keys)
{
    QByteArray text;
    for (const Key &k : keys)
        text += "(" + QByteArray::number(int(k.code)) + "," + QByteArray::number(uint(k.ch)) + ")";
    return qstrdup(text.constData());
}
} // namespace QTest

class TestKeyDecoder : public QObject {
    Q_OBJECT
private slots:
    void decodes_data();
    void decodes();
    void loneEscapeWaitsForFlush();
    void splitSequenceCompletesOnTheNextRead();
    void anySplitDecodesTheSame();
};

void TestKeyDecoder::decodes_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QList<Key>>("keys");
    QTest::addRow("csi arrows") << QByteArray("\x1b[A\x1b[B\x1b[C\x1b[D")
                                << QList<Key>{key(Key::Up), key(Key::Down), key(Key::Right), key(Key::Left)};
    QTest::addRow("ss3 arrows") << QByteArray("\x1bOA\x1bOB\x1bOC\x1bOD")
                                << QList<Key>{key(Key::Up), key(Key::Down), key(Key::Right), key(Key::Left)};
    QTest::addRow("modified arrow") << QByteArray("\x1b[1;5A") << QList<Key>{key(Key::Up)};
    QTest::addRow("paging") << QByteArray("\x1b[5~\x1b[6~\x1b[H\x1b[F\x1b[1~\x1b[4~")
                            << QList<Key>{key(Key::PageUp), key(Key::PageDown), key(Key::Home),
                                          key(Key::End),    key(Key::Home),     key(Key::End)};
    QTest::addRow("letters") << QByteArray("qcr") << QList<Key>{ch('q'), ch('c'), ch('r')};
    QTest::addRow("enter") << QByteArray("\r\n") << QList<Key>{key(Key::Enter), key(Key::Enter)};
    QTest::addRow("ctrl-c") << QByteArray("\x03") << QList<Key>{key(Key::CtrlC)};
    QTest::addRow("ctrl-d") << QByteArray("\x04") << QList<Key>{ch(4)};
    QTest::addRow("tab backspace") << QByteArray("\t\x7f") << QList<Key>{key(Key::Tab), key(Key::Backspace)};
    QTest::addRow("escape then y") << QByteArray("\x1by") << QList<Key>{key(Key::Escape), ch('y')};
    QTest::addRow("two escapes") << QByteArray("\x1b\x1b") << QList<Key>{key(Key::Escape), key(Key::Escape)};
    QTest::addRow("unknown swallowed") << QByteArray("\x1b[15~a\x1bOPb\x1b[200~c")
                                       << QList<Key>{ch('a'), ch('b'), ch('c')};
    QTest::addRow("utf-8") << QByteArray("\xc3\xa9\xe2\x86\x91\xf0\x9f\x99\x82")
                           << QList<Key>{ch(0xe9), ch(0x2191), ch(0x1f642)};
    QTest::addRow("broken utf-8") << QByteArray("\xc3x\xff") << QList<Key>{ch(0xfffd), ch('x'), ch(0xfffd)};
    QTest::addRow("endless csi") << QByteArray("\x1b[") + QByteArray(40, '1') + "A"
                                 << QList<Key>{key(Key::Escape), ch('[')} + QList<Key>(40, ch('1')) +
                                        QList<Key>{ch('A')};
}

void TestKeyDecoder::decodes()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QList<Key>, keys);
    QCOMPARE(decode(bytes, 0), keys);
    QCOMPARE(decode(bytes, 1), keys); // every byte its own read
    QCOMPARE(decode(bytes, 2), keys);
}

void TestKeyDecoder::loneEscapeWaitsForFlush()
{
    KeyDecoder d;
    QVERIFY(d.feed("\x1b").isEmpty());
    QVERIFY(d.hasPending());
    QCOMPARE(d.flush(), QList<Key>{key(Key::Escape)});
    QVERIFY(!d.hasPending());
}

void TestKeyDecoder::splitSequenceCompletesOnTheNextRead()
{
    KeyDecoder d;
    QCOMPARE(d.feed("j\x1b["), QList<Key>{ch('j')});
    QVERIFY(d.hasPending());
    QCOMPARE(d.feed("B"), QList<Key>{key(Key::Down)});
    QCOMPARE(d.feed("\xe2\x86"), QList<Key>());
    QCOMPARE(d.feed("\x91"), QList<Key>{ch(0x2191)});
    QVERIFY(!d.hasPending());
}

void TestKeyDecoder::anySplitDecodesTheSame()
{
    QRandomGenerator random(5); // fixed seed: a failure reproduces
    const QByteArray alphabet("\x1b[O0123456789;~ABCDHFqjk\r\x03\x7f\xc3\xa9\xe2\x86\x91\xff");
    for (int round = 0; round < 2000; ++round) {
        QByteArray bytes;
        for (int i = random.bounded(1, 24); i > 0; --i)
            bytes.append(alphabet[random.bounded(int(alphabet.size()))]);
        const QList<Key> whole = decode(bytes, 0);
        KeyDecoder d;
        QList<Key> pieces;
        for (qsizetype i = 0; i < bytes.size();) {
            const qsizetype n = std::min<qsizetype>(random.bounded(1, 5), bytes.size() - i);
            pieces += d.feed(QByteArrayView(bytes).sliced(i, n));
            i += n;
        }
        pieces += d.flush();
        QVERIFY2(pieces == whole, bytes.toHex(' ').constData());
    }
}

TORCHDECK_TEST_MAIN(TestKeyDecoder)
#include "tst_keydecoder.moc"
