#include "term/render/numberformat.h"
#include "testmain.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace torchdeck::term;

class TestNumberFormat : public QObject {
    Q_OBJECT
private slots:
    void compact_data();
    void compact();
    void moreDigitsTellCloseValuesApart();
    void count_data();
    void count();
    void duration_data();
    void duration();
};

void TestNumberFormat::compact_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::addRow("loss") << 0.0421 << QStringLiteral("0.0421");
    QTest::addRow("rounded") << 0.042137 << QStringLiteral("0.0421");
    QTest::addRow("small") << 0.0012 << QStringLiteral("1.2e-3");
    QTest::addRow("tiny") << 5e-7 << QStringLiteral("5e-7");
    QTest::addRow("carry") << 0.0099999 << QStringLiteral("1e-2");
    QTest::addRow("one") << 1.0 << QStringLiteral("1");
    QTest::addRow("tens") << 12.345 << QStringLiteral("12.3");
    QTest::addRow("thousands") << 1234.4 << QStringLiteral("1234");
    QTest::addRow("big") << 123456.0 << QStringLiteral("123456");
    QTest::addRow("huge") << 1.5e6 << QStringLiteral("1.5e6");
    QTest::addRow("negative") << -0.5 << QStringLiteral("-0.5");
    QTest::addRow("zero") << 0.0 << QStringLiteral("0");
    QTest::addRow("nan") << std::nan("") << QStringLiteral("-");
    QTest::addRow("inf") << std::numeric_limits<double>::infinity() << QStringLiteral("-");
}

void TestNumberFormat::compact()
{
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(formatCompact(value), text);
}

void TestNumberFormat::moreDigitsTellCloseValuesApart()
{
    QCOMPARE(formatCompact(0.04211), formatCompact(0.04213));
    QCOMPARE(formatCompact(0.04211, 4), QStringLiteral("0.04211"));
    QCOMPARE(formatCompact(0.04213, 4), QStringLiteral("0.04213"));
    QCOMPARE(formatCompact(0.001234, 4), QStringLiteral("1.23e-3"));
}

void TestNumberFormat::count_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::addRow("small") << 1000.0 << QStringLiteral("1000");
    QTest::addRow("five digits") << 52000.0 << QStringLiteral("52000");
    QTest::addRow("six digits") << 123456.0 << QStringLiteral("123,456");
    QTest::addRow("million") << 1e6 << QStringLiteral("1,000,000");
    QTest::addRow("negative") << -1234567.0 << QStringLiteral("-1,234,567");
    QTest::addRow("nan") << std::nan("") << QStringLiteral("-");
}

void TestNumberFormat::count()
{
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(formatCount(value), text);
}

void TestNumberFormat::duration_data()
{
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::addRow("seconds") << 35.4 << QStringLiteral("35s");
    QTest::addRow("minutes") << 725.0 << QStringLiteral("12m05s");
    QTest::addRow("hours") << 12000.0 << QStringLiteral("3h20m");
    QTest::addRow("days") << 2 * 86400.0 + 4 * 3600 << QStringLiteral("2d04h");
    QTest::addRow("unknown") << std::nan("") << QStringLiteral("-");
    QTest::addRow("negative") << -1.0 << QStringLiteral("-");
}

void TestNumberFormat::duration()
{
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(formatDuration(seconds), text);
}

TORCHDECK_TEST_MAIN(TestNumberFormat)
#include "tst_numberformat.moc"
