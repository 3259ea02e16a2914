#include "core/metrics/lineassembler.h"
#include "testmain.h"

#include <QRandomGenerator>
#include <QTest>

using torchdeck::LineAssembler;

class TestLineAssembler : public QObject {
    Q_OBJECT
private slots:
    void everySplitPoint();
    void tornLastLineWaits();
    void crlfAndEmptyLines();
    void resumeAtOffsetLosesAndRepeatsNothing();
    void takePartialAtEndOfStream();
    void resetAfterTruncation();
};

static const QByteArray kText = QByteArrayLiteral("alpha\nbeta\r\n\ngamma delta\nlast");

void TestLineAssembler::everySplitPoint()
{
    for (qsizetype cut = 0; cut <= kText.size(); ++cut) {
        LineAssembler a;
        a.append(QByteArrayView(kText).first(cut));
        QList<QByteArray> lines = a.takeLines();
        a.append(QByteArrayView(kText).sliced(cut));
        lines += a.takeLines();
        QCOMPARE(lines, (QList<QByteArray>{"alpha", "beta", "", "gamma delta"}));
        QCOMPARE(a.offset(), kText.indexOf("last"));
        QCOMPARE(a.pendingBytes(), 4);
    }
}

void TestLineAssembler::tornLastLineWaits()
{
    LineAssembler a(100);
    a.append("{\"step\":1}\n{\"st");
    QCOMPARE(a.takeLines(), QList<QByteArray>{"{\"step\":1}"});
    QCOMPARE(a.offset(), 111);
    a.append("ep\":2}");
    QVERIFY(a.takeLines().isEmpty());
    QCOMPARE(a.offset(), 111);
    a.append("\n");
    QCOMPARE(a.takeLines(), QList<QByteArray>{"{\"step\":2}"});
    QCOMPARE(a.offset(), 122);
}

void TestLineAssembler::crlfAndEmptyLines()
{
    LineAssembler a;
    a.append("\r\n\n\rx\r\n");
    QCOMPARE(a.takeLines(), (QList<QByteArray>{"", "", "\rx"}));
    QCOMPARE(a.offset(), 7);
}

// A tail that dies anywhere and resumes at offset() sees every line exactly once.
void TestLineAssembler::resumeAtOffsetLosesAndRepeatsNothing()
{
    QByteArray file;
    QList<QByteArray> expected;
    for (int i = 0; i < 500; ++i) {
        expected.append(QByteArray::number(i) + QByteArray(i % 37, 'x'));
        file += expected.last() + '\n';
    }
    QRandomGenerator rng(7);
    for (int trial = 0; trial < 50; ++trial) {
        QList<QByteArray> seen;
        qint64 offset = 0;
        while (offset < file.size()) {
            LineAssembler a(offset); // a new connection resumes where the last one stopped
            const qint64 readUntil = qMin<qint64>(file.size(), offset + rng.bounded(1, 4000));
            qint64 pos = offset;
            while (pos < readUntil) {
                const qint64 n = qMin<qint64>(readUntil - pos, rng.bounded(1, 300));
                a.append(QByteArrayView(file).sliced(pos, n));
                pos += n;
                seen += a.takeLines();
            }
            QVERIFY(a.offset() <= pos);
            offset = a.offset();
        }
        QCOMPARE(seen, expected);
    }
}

void TestLineAssembler::takePartialAtEndOfStream()
{
    LineAssembler a;
    a.append("one\ntwo\r");
    QCOMPARE(a.takeLines(), QList<QByteArray>{"one"});
    QCOMPARE(a.takePartial(), QByteArray("two"));
    QCOMPARE(a.offset(), 8);
    QCOMPARE(a.pendingBytes(), 0);
    QCOMPARE(a.takePartial(), QByteArray());
}

void TestLineAssembler::resetAfterTruncation()
{
    LineAssembler a;
    a.append("old line\nhalf");
    a.takeLines();
    a.reset(0);
    QCOMPARE(a.offset(), 0);
    QCOMPARE(a.pendingBytes(), 0);
    a.append("new\n");
    QCOMPARE(a.takeLines(), QList<QByteArray>{"new"});
}

TORCHDECK_TEST_MAIN(TestLineAssembler)
#include "tst_lineassembler.moc"
