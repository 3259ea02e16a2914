#include "term/render/braillecanvas.h"
#include "term/render/textwidth.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck::term;

class TestBrailleCanvas : public QObject {
    Q_OBJECT
private slots:
    void dotsMapToBrailleBits();
    void outsideDotsAreClipped();
    void lineJoinsItsEnds();
    void wildLineStaysCheap();
    void textOverlaysDots();
    void colourCodesOnlyWhereNeeded();
    void emptyCanvas();
};

void TestBrailleCanvas::dotsMapToBrailleBits()
{
    BrailleCanvas c(2, 1);
    QCOMPARE(c.dotWidth(), 4);
    QCOMPARE(c.dotHeight(), 4);
    c.set(0, 0); // dot 1
    c.set(1, 3); // dot 8
    QVERIFY(c.isSet(0, 0));
    QVERIFY(!c.isSet(1, 0));
    QCOMPARE(c.row(0, false), QStringLiteral("\u2881 ")); // 0x01 | 0x80, then an empty cell as a space
    for (int y = 0; y < 4; ++y) {
        c.set(2, y);
        c.set(3, y);
    }
    QCOMPARE(c.row(0, false).at(1), QChar(0x28ff));
}

void TestBrailleCanvas::outsideDotsAreClipped()
{
    BrailleCanvas c(3, 2);
    c.set(-1, 0);
    c.set(0, -1);
    c.set(6, 0);
    c.set(0, 8);
    QCOMPARE(c.lines(false), QStringList({QStringLiteral("   "), QStringLiteral("   ")}));
    QVERIFY(!c.isSet(100, 100));
}

void TestBrailleCanvas::lineJoinsItsEnds()
{
    BrailleCanvas c(4, 2); // 8 x 8 dots
    c.line(0, 0, 7, 7);
    for (int i = 0; i < 8; ++i)
        QVERIFY2(c.isSet(i, i), qPrintable(QString::number(i)));
    QVERIFY(!c.isSet(7, 0));
    c.line(7, 0, 7, 7); // vertical, reversed direction works too
    for (int y = 0; y < 8; ++y)
        QVERIFY(c.isSet(7, y));
}

void TestBrailleCanvas::wildLineStaysCheap()
{
    BrailleCanvas c(10, 3);
    c.line(-2000000000, 5, 2000000000, 5); // would take forever unclipped
    for (int x = 0; x < c.dotWidth(); ++x)
        QVERIFY(c.isSet(x, 5));
}

void TestBrailleCanvas::textOverlaysDots()
{
    BrailleCanvas c(6, 1);
    c.set(0, 0);
    c.text(1, 0, u"ab\u65e5c");
    c.text(5, 0, u"xyz"); // cut at the edge
    QCOMPARE(c.row(0, false), QStringLiteral("\u2801ab?cx"));
    QCOMPARE(displayWidth(c.row(0, false)), 6);
}

void TestBrailleCanvas::colourCodesOnlyWhereNeeded()
{
    BrailleCanvas c(4, 1);
    c.set(0, 0, 39);
    c.set(2, 0, 39);
    c.set(6, 0, 214);
    const QString row = c.row(0, true);
    QCOMPARE(row.count(QStringLiteral("\x1b[38;5;39m")), 1);
    QCOMPARE(row.count(QStringLiteral("\x1b[38;5;214m")), 1);
    QVERIFY(row.endsWith(QStringLiteral("\x1b[39m")));
    QCOMPARE(displayWidth(row), 4);
    QVERIFY(!c.row(0, false).contains(u'\x1b'));
}

void TestBrailleCanvas::emptyCanvas()
{
    BrailleCanvas c(0, -3);
    c.set(0, 0);
    c.line(0, 0, 5, 5);
    QVERIFY(c.lines(true).isEmpty());
}

TORCHDECK_TEST_MAIN(TestBrailleCanvas)
#include "tst_braillecanvas.moc"
