#include "term/render/linechart.h"
#include "term/render/numberformat.h"
#include "term/render/textwidth.h"
#include "testmain.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace torchdeck;
using namespace torchdeck::term;

namespace {

// The plot part of a rendered chart: for each dot column, the dot rows set (0 = top).
QList<QList<int>> plotDots(const QStringList &lines)
{
    QList<QList<int>> columns;
    for (qsizetype r = 1; r + 1 < lines.size(); ++r) {
        const QString plain = stripAnsi(lines[r]);
        qsizetype axis = plain.indexOf(QChar(0x2524));
        const qsizetype bar = plain.indexOf(QChar(0x2502));
        if (axis < 0 || (bar >= 0 && bar < axis))
            axis = bar;
        const QString cells = plain.mid(axis + 1);
        if (columns.isEmpty())
            columns.resize(cells.size() * 2);
        for (qsizetype c = 0; c < cells.size(); ++c) {
            const char16_t u = cells[c].unicode();
            const int bits = u >= 0x2800 && u <= 0x28ff ? u - 0x2800 : 0;
            const int map[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
            for (int dy = 0; dy < 4; ++dy) {
                for (int dx = 0; dx < 2; ++dx) {
                    if (bits & map[dy][dx])
                        columns[c * 2 + dx].append(int(r - 1) * 4 + dy);
                }
            }
        }
    }
    return columns;
}

double mean(const QList<int> &v)
{
    double sum = 0;
    for (int x : v)
        sum += x;
    return sum / double(v.size());
}

LineChartOptions plain(const QString &title = QStringLiteral("loss"))
{
    LineChartOptions o;
    o.title = title;
    o.useColor = false;
    return o;
}

void checkBox(const QStringList &lines, int cols, int rows)
{
    QCOMPARE(lines.size(), qsizetype(rows));
    for (const QString &line : lines)
        QCOMPARE(displayWidth(line), cols);
}

} // namespace

class TestLineChart : public QObject {
    Q_OBJECT
private slots:
    void decreasingLossGoesDown();
    void axisLabelsShowMinAndMax();
    void xAxisShowsTheStepRange();
    void legendNamesTheLines();
    void emptySeriesShowsPlaceholder();
    void onePointAndFlatSeries();
    void nonFiniteValuesAreIgnored();
    void logScaleAndItsFallback();
    void discardedPointsAreDimmed();
    void valLossByEpochOnTheStepAxis();
    void boxIsExactAtEverySize_data();
    void boxIsExactAtEverySize();
};

void TestLineChart::decreasingLossGoesDown()
{
    MetricSeries s;
    for (int i = 1; i <= 1000; ++i)
        s.append(i, 0.5 / (1 + i / 50.0), 0);
    const QStringList lines = renderLineChart({{&s, QStringLiteral("train")}}, plain(), 60, 16);
    const QList<QList<int>> dots = plotDots(lines);
    double previous = -1;
    int drawn = 0;
    for (const QList<int> &column : dots) {
        if (column.isEmpty())
            continue;
        ++drawn;
        QVERIFY2(mean(column) >= previous, "the curve must not go up");
        previous = mean(column);
    }
    QVERIFY(drawn >= int(dots.size()) - 1);   // a continuous line over the whole width
    QCOMPARE(dots.first().first(), 0);        // starts at the top
    QCOMPARE(dots.last().last(), 14 * 4 - 1); // ends at the bottom
}

void TestLineChart::axisLabelsShowMinAndMax()
{
    MetricSeries s;
    s.append(1, 0.5, 0);
    s.append(2, 0.2, 0);
    s.append(3, 0.0421, 0);
    const QStringList lines = renderLineChart({{&s}}, plain(), 40, 10);
    QVERIFY2(stripAnsi(lines[1]).trimmed().startsWith(u"0.5"), qPrintable(lines[1]));
    QVERIFY2(stripAnsi(lines[8]).trimmed().startsWith(u"0.0421"), qPrintable(lines[8]));
    QVERIFY(stripAnsi(lines[1]).contains(QChar(0x2524))); // a tick on the axis
    // Close values get the digits that tell them apart.
    MetricSeries close;
    close.append(1, 0.04213, 0);
    close.append(2, 0.04211, 0);
    const QStringList closeLines = renderLineChart({{&close}}, plain(), 40, 10);
    QVERIFY(stripAnsi(closeLines[1]).contains(u"0.04213"));
    QVERIFY(stripAnsi(closeLines[8]).contains(u"0.04211"));
}

void TestLineChart::xAxisShowsTheStepRange()
{
    MetricSeries s;
    for (int i = 100; i <= 1000000; i += 100)
        s.append(i, 1.0 / i, 0);
    const QStringList lines = renderLineChart({{&s}}, plain(), 60, 8);
    const QString axis = stripAnsi(lines.last());
    QVERIFY2(axis.contains(u"100 "), qPrintable(axis));
    QVERIFY(axis.trimmed().endsWith(u"1,000,000"));
    QVERIFY(axis.contains(u"step"));
}

void TestLineChart::legendNamesTheLines()
{
    MetricSeries train, val;
    train.append(1, 1, 0);
    train.append(2, 0.5, 0);
    LineChartOptions o = plain(QStringLiteral("loss"));
    o.useColor = true;
    const QStringList lines =
        renderLineChart({{&train, QStringLiteral("train"), 39}, {&val, QStringLiteral("val"), 214}}, o, 50, 8);
    const QString title = stripAnsi(lines[0]);
    QVERIFY(title.startsWith(u"loss"));
    QVERIFY(title.contains(u"\u2501 train"));
    QVERIFY2(!title.contains(u"val"), "a line without points has no legend entry");
    QVERIFY(lines[0].contains(QStringLiteral("\x1b[38;5;39m\u2501")));
}

void TestLineChart::emptySeriesShowsPlaceholder()
{
    MetricSeries empty;
    for (const QList<ChartLine> &lines :
         {QList<ChartLine>{}, QList<ChartLine>{{&empty}}, QList<ChartLine>{{nullptr}}}) {
        const QStringList out = renderLineChart(lines, plain(), 40, 10);
        checkBox(out, 40, 10);
        QVERIFY(stripAnsi(out.join(u'\n')).contains(u"no data yet"));
    }
}

void TestLineChart::onePointAndFlatSeries()
{
    MetricSeries one;
    one.append(7, 0.25, 0);
    QStringList out = renderLineChart({{&one}}, plain(), 40, 10);
    checkBox(out, 40, 10);
    int dots = 0;
    for (const QList<int> &c : plotDots(out))
        dots += int(c.size());
    QCOMPARE(dots, 1);
    QVERIFY(stripAnsi(out.join(u'\n')).contains(u"0.25"));
    QVERIFY(stripAnsi(out.last()).contains(u'7'));

    MetricSeries flat;
    for (int i = 0; i < 100; ++i)
        flat.append(i, 3.0, 0);
    out = renderLineChart({{&flat}}, plain(), 40, 10);
    checkBox(out, 40, 10);
    QSet<int> rows;
    for (const QList<int> &c : plotDots(out))
        rows.unite(QSet<int>(c.cbegin(), c.cend()));
    QCOMPARE(rows.size(), 1);
    bool labelled = false;
    for (const QString &line : out)
        labelled = labelled || stripAnsi(line).trimmed().startsWith(QStringLiteral("3\u2524"));
    QVERIFY2(labelled, "the flat value is on the axis");
}

void TestLineChart::nonFiniteValuesAreIgnored()
{
    MetricSeries clean, dirty;
    for (int i = 1; i <= 50; ++i) {
        clean.append(i, 1.0 / i, 0);
        dirty.append(i, 1.0 / i, 0);
        dirty.append(i + 0.5, std::nan(""), 0);
        dirty.append(i + 0.6, std::numeric_limits<double>::infinity(), 0);
    }
    QCOMPARE(renderLineChart({{&dirty}}, plain(), 50, 12), renderLineChart({{&clean}}, plain(), 50, 12));
}

void TestLineChart::logScaleAndItsFallback()
{
    MetricSeries s;
    for (int i = 1; i <= 100; ++i)
        s.append(i, std::pow(10.0, -i / 25.0), 0);
    LineChartOptions o = plain();
    o.logY = true;
    QStringList out = renderLineChart({{&s}}, o, 50, 12);
    QVERIFY(stripAnsi(out[0]).contains(u"(log)"));
    // On a log scale an exponential decay is a straight line: equal steps down.
    const QList<QList<int>> dots = plotDots(out);
    QVERIFY(qAbs(mean(dots[dots.size() / 2]) - (dots.first().first() + dots.last().last()) / 2.0) <= 2);

    s.append(101, 0.0, 0);
    out = renderLineChart({{&s}}, o, 50, 12);
    QVERIFY2(!stripAnsi(out[0]).contains(u"(log)"), "zero has no logarithm: linear");
}

void TestLineChart::discardedPointsAreDimmed()
{
    MetricSeries s;
    for (int i = 1; i <= 100; ++i)
        s.append(i, 1.0, 0);
    s.discardAfter(50); // a resume from step 50: the old 51..100 stay, dimmed
    for (int i = 51; i <= 100; ++i)
        s.append(i, 0.5, 1);
    LineChartOptions o = plain();
    o.useColor = true;
    const QString with = renderLineChart({{&s, {}, 39, 1.0, true}}, o, 40, 10).join(u'\n');
    QVERIFY(with.contains(QStringLiteral("\x1b[38;5;240m")));
    const QString without = renderLineChart({{&s, {}, 39, 1.0, false}}, o, 40, 10).join(u'\n');
    QVERIFY(!without.contains(QStringLiteral("\x1b[38;5;240m")));
}

void TestLineChart::valLossByEpochOnTheStepAxis()
{
    MetricSeries train, val;
    for (int i = 1; i <= 400; ++i)
        train.append(i, 1.0 - i / 500.0, 0);
    for (int e = 1; e <= 4; ++e)
        val.append(e, 1.0 - e * 100 / 500.0, 0);
    const QStringList lines = renderLineChart({{&train}, {&val, {}, -1, 100.0}}, plain(), 40, 10);
    QVERIFY(stripAnsi(lines.last()).trimmed().endsWith(u"400"));
    checkBox(lines, 40, 10);
}

void TestLineChart::boxIsExactAtEverySize_data()
{
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("rows");
    for (const auto &[c, r] : {std::pair{0, 0}, {1, 1}, {5, 2}, {10, 3}, {12, 4}, {20, 5}, {60, 15}, {200, 40}})
        QTest::addRow("%dx%d", c, r) << c << r;
}

void TestLineChart::boxIsExactAtEverySize()
{
    QFETCH(int, cols);
    QFETCH(int, rows);
    MetricSeries s;
    for (int i = 1; i <= 5000; ++i)
        s.append(i, 100.0 / i, 0);
    MetricSeries empty;
    LineChartOptions o = plain(QStringLiteral("a long chart title that does not fit"));
    o.useColor = true;
    checkBox(renderLineChart({{&s, QStringLiteral("train"), 39}}, o, cols, rows), cols, rows);
    checkBox(renderLineChart({{&empty}}, o, cols, rows), cols, rows);
}

TORCHDECK_TEST_MAIN(TestLineChart)
#include "tst_linechart.moc"
