#include "term/render/textwidth.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck::term;

class TestTextWidth : public QObject {
    Q_OBJECT
private slots:
    void displayWidthCountsCells_data();
    void displayWidthCountsCells();
    void fitCutsWithEllipsis_data();
    void fitCutsWithEllipsis();
    void padGivesExactWidth();
    void terminalSafeNeutralisesHostileText_data();
    void terminalSafeNeutralisesHostileText();
    void stripAnsiKeepsTheText();
};

void TestTextWidth::displayWidthCountsCells_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("width");
    QTest::addRow("ascii") << QStringLiteral("abc") << 3;
    QTest::addRow("braille") << QStringLiteral("\u28ff\u2847\u2800") << 3;
    QTest::addRow("box and blocks") << QStringLiteral("\u2524\u2502\u2501\u2588\u258f") << 5;
    QTest::addRow("cjk") << QStringLiteral("\u65e5\u672c") << 4;
    QTest::addRow("emoji") << QString::fromUtf8("\xf0\x9f\x99\x82") << 2;
    QTest::addRow("combining") << QStringLiteral("e\u0301") << 1;
    QTest::addRow("ansi colour") << QStringLiteral("\x1b[38;5;39mab\x1b[39m") << 2;
    QTest::addRow("controls") << QStringLiteral("\x01\x7f") << 0;
    QTest::addRow("empty") << QString() << 0;
}

void TestTextWidth::displayWidthCountsCells()
{
    QFETCH(QString, text);
    QFETCH(int, width);
    QCOMPARE(displayWidth(text), width);
}

void TestTextWidth::fitCutsWithEllipsis_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("width");
    QTest::addColumn<QString>("fitted");
    QTest::addRow("fits") << QStringLiteral("abcd") << 4 << QStringLiteral("abcd");
    QTest::addRow("cut") << QStringLiteral("abcdef") << 4 << QStringLiteral("abc\u2026");
    QTest::addRow("one cell") << QStringLiteral("abcdef") << 1 << QStringLiteral("\u2026");
    QTest::addRow("no room") << QStringLiteral("abc") << 0 << QString();
    QTest::addRow("wide not split") << QStringLiteral("\u65e5\u672c\u8a9e") << 4 << QStringLiteral("\u65e5\u2026");
    QTest::addRow("emoji kept whole") << QString::fromUtf8("a\xf0\x9f\x99\x82xyz") << 4
                                      << QString::fromUtf8("a\xf0\x9f\x99\x82\xe2\x80\xa6");
}

void TestTextWidth::fitCutsWithEllipsis()
{
    QFETCH(QString, text);
    QFETCH(int, width);
    QFETCH(QString, fitted);
    QCOMPARE(fitToWidth(text, width), fitted);
    QVERIFY(displayWidth(fitToWidth(text, width)) <= width);
}

void TestTextWidth::padGivesExactWidth()
{
    QCOMPARE(padRight(u"ab", 4), QStringLiteral("ab  "));
    QCOMPARE(padLeft(u"ab", 4), QStringLiteral("  ab"));
    QCOMPARE(padRight(u"abcdef", 4), QStringLiteral("abc\u2026"));
    QCOMPARE(displayWidth(padRight(u"\u65e5\u672c\u8a9e", 5)), 5);
    QCOMPARE(displayWidth(padLeft(u"\u65e5\u672c\u8a9e", 4)), 4);
}

void TestTextWidth::terminalSafeNeutralisesHostileText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("safe");
    QTest::addRow("clear screen") << QStringLiteral("a\x1b[2Jb") << QStringLiteral("ab");
    QTest::addRow("title osc") << QStringLiteral("\x1b]0;owned\x07x") << QStringLiteral("x");
    QTest::addRow("osc with st") << QStringLiteral("\x1b]8;;http://x\x1b\\link") << QStringLiteral("link");
    QTest::addRow("whitespace") << QStringLiteral("a\tb\r\nc") << QStringLiteral("a b  c");
    QTest::addRow("bell and del") << QStringLiteral("a\x07\x7f") << QStringLiteral("a??");
    QTest::addRow("c1 csi") << QStringLiteral("a\u009b2J") << QStringLiteral("a?2J");
    QTest::addRow("bidi override") << QStringLiteral("ab\u202ecd") << QStringLiteral("abcd");
    QTest::addRow("unicode kept") << QStringLiteral("loss \u2193 \u65e5") << QStringLiteral("loss \u2193 \u65e5");
}

void TestTextWidth::terminalSafeNeutralisesHostileText()
{
    QFETCH(QString, text);
    QFETCH(QString, safe);
    QCOMPARE(terminalSafe(text), safe);
}

void TestTextWidth::stripAnsiKeepsTheText()
{
    QCOMPARE(stripAnsi(u"\x1b[1mbold\x1b[22m \x1b[38;5;240m\u28ff\x1b[39m"), QStringLiteral("bold \u28ff"));
}

TORCHDECK_TEST_MAIN(TestTextWidth)
#include "tst_textwidth.moc"
