#include "term/render/barchart.h"
#include "term/render/textwidth.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::term;

namespace {

QStringList stripped(const QStringList &lines)
{
    QStringList out;
    for (const QString &line : lines)
        out.append(stripAnsi(line));
    return out;
}

BarChartOptions plain()
{
    BarChartOptions o;
    o.useColor = false;
    return o;
}

// Cells of bar drawn on a line, in eighths.
int barEighths(const QString &line)
{
    int eighths = 0;
    for (const QChar c : line) {
        if (c.unicode() == 0x2588)
            eighths += 8;
        else if (c.unicode() >= 0x2589 && c.unicode() <= 0x258f)
            eighths += 0x2590 - c.unicode();
    }
    return eighths;
}

void checkBox(const QStringList &lines, int cols, int rows)
{
    QCOMPARE(lines.size(), qsizetype(rows));
    for (const QString &line : lines)
        QCOMPARE(displayWidth(line), cols);
}

} // namespace

class TestBarChart : public QObject {
    Q_OBJECT
private slots:
    void barsAreProportionalAndLabelled();
    void latestEpochsWhenShort();
    void emptySeries();
    void boxIsExactAtEverySize();
};

void TestBarChart::barsAreProportionalAndLabelled()
{
    MetricSeries s;
    s.append(1, 10, 0);
    s.append(2, 20, 0);
    s.append(3, 15, 0);
    const QStringList lines = stripped(renderBarChart(s, plain(), 40, 5));
    checkBox(lines, 40, 5);
    QVERIFY(lines[0].startsWith(u"epoch time"));
    QVERIFY(lines[1].trimmed().startsWith(u"1 "));
    QVERIFY(lines[1].trimmed().endsWith(u"10s"));
    QVERIFY(lines[2].trimmed().endsWith(u"20s"));
    QVERIFY(lines[3].trimmed().endsWith(u"15s"));
    const int longest = barEighths(lines[2]);
    QVERIFY(longest > 0);
    QVERIFY(qAbs(barEighths(lines[1]) * 2 - longest) <= 1);
    QVERIFY(qAbs(barEighths(lines[3]) * 4 - longest * 3) <= 3);
    QCOMPARE(lines[4].trimmed(), QString());
}

void TestBarChart::latestEpochsWhenShort()
{
    MetricSeries s;
    for (int e = 1; e <= 12; ++e)
        s.append(e, 5 + e, 0);
    const QStringList lines = stripped(renderBarChart(s, plain(), 30, 4));
    checkBox(lines, 30, 4);
    QVERIFY(lines[0].contains(u"last 3 of 12"));
    QVERIFY(lines[1].trimmed().startsWith(u"10 "));
    QVERIFY(lines[3].trimmed().startsWith(u"12 "));
    QVERIFY(lines[3].trimmed().endsWith(u"17s"));
}

void TestBarChart::emptySeries()
{
    MetricSeries s;
    const QStringList lines = stripped(renderBarChart(s, plain(), 30, 4));
    checkBox(lines, 30, 4);
    QVERIFY(lines[0].contains(u"none finished yet"));
}

void TestBarChart::boxIsExactAtEverySize()
{
    MetricSeries s;
    for (int e = 1; e <= 30; ++e)
        s.append(e, 100.0 + e * 3.3, 0);
    BarChartOptions o;
    o.color = 71;
    for (const auto &[cols, rows] : {std::pair{0, 0}, {1, 1}, {6, 2}, {12, 3}, {30, 10}, {120, 40}}) {
        checkBox(renderBarChart(s, o, cols, rows), cols, rows);
        checkBox(renderBarChart(MetricSeries(), o, cols, rows), cols, rows);
    }
}

TORCHDECK_TEST_MAIN(TestBarChart)
#include "tst_barchart.moc"
