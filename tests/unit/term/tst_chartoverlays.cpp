// What the line chart draws over its curves: a smoothed curve over the faint raw one, and attempt markers
// (a faint dotted column, named under the x range).
#include "core/metrics/smoothing.h"
#include "term/render/linechart.h"
#include "term/render/textwidth.h"
#include "testmain.h"

#include <QTest>
#include <cmath>

using namespace torchdeck;
using namespace torchdeck::term;

namespace {

const QChar kMarker(0x250a); // ┊

// One screen cell of a rendered line: its character and whether it was drawn faint (SGR 2 .. 22).
struct Cell {
    QChar ch;
    bool faint = false;
};

QList<Cell> cellsOf(const QString &line)
{
    QList<Cell> cells;
    bool faint = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line[i] == u'\x1b' && i + 1 < line.size() && line[i + 1] == u'[') {
            const qsizetype end = line.indexOf(u'm', i);
            const QStringView code = QStringView(line).mid(i + 2, end - i - 2);
            if (code == u"2")
                faint = true;
            else if (code == u"22")
                faint = false;
            i = end;
            continue;
        }
        cells.append({line[i], faint});
    }
    return cells;
}

// The plot's cells of a chart line: those right of the y axis (│ or ┤).
QList<Cell> plotCells(const QString &line)
{
    QList<Cell> cells = cellsOf(line);
    for (qsizetype c = 0; c < cells.size(); ++c) {
        if (cells[c].ch == QChar(0x2502) || cells[c].ch == QChar(0x2524))
            return cells.mid(c + 1);
    }
    return {};
}

bool hasDot(const Cell &cell, int dotX, int dotY)
{
    static const int bits[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    const char16_t u = cell.ch.unicode();
    return u >= 0x2800 && u <= 0x28ff && ((u - 0x2800) & bits[dotY % 4][dotX % 2]);
}

LineChartOptions options(bool useColor)
{
    LineChartOptions o;
    o.title = QStringLiteral("loss");
    o.useColor = useColor;
    return o;
}

// Noise between 0.1 and 0.9 around 0.5: the raw curve fills the plot's height, a smoothed one stays inside.
MetricSeries noisy()
{
    MetricSeries s;
    for (int i = 1; i <= 400; ++i)
        s.append(i, i % 2 ? 0.9 : 0.1, 0);
    return s;
}

// A loss that drops at once and stays at the bottom: most of the plot is blank.
MetricSeries dropping()
{
    MetricSeries s;
    for (int i = 0; i <= 200; ++i)
        s.append(i, std::exp(-i / 3.0), 0);
    return s;
}

// The plot column of the first ┊ in each plot row, -1 where there is none; -2 where a row has two.
QList<int> markerColumns(const QStringList &lines)
{
    QList<int> columns;
    for (const QString &line : lines) {
        const QList<Cell> cells = plotCells(line);
        int found = -1;
        for (qsizetype c = 0; c < cells.size(); ++c) {
            if (cells[c].ch == kMarker)
                found = found == -1 ? int(c) : -2;
        }
        if (!cells.isEmpty())
            columns.append(found);
    }
    return columns;
}

void checkBox(const QStringList &lines, int cols, int rows)
{
    QCOMPARE(lines.size(), qsizetype(rows));
    for (const QString &line : lines)
        QCOMPARE(displayWidth(line), cols);
}

} // namespace

class TestChartOverlays : public QObject {
    Q_OBJECT
private slots:
    void smoothedCurveOverFaintRaw_data();
    void smoothedCurveOverFaintRaw();
    void noSmoothingDrawsAsBefore();
    void markerColumnAtItsX_data();
    void markerColumnAtItsX();
    void markersOutsideTheRangeAreLeftOut();
    void newestMarkersWhenNotAllFit_data();
    void newestMarkersWhenNotAllFit();
    void boxIsExactWithMarkers();
};

void TestChartOverlays::smoothedCurveOverFaintRaw_data()
{
    QTest::addColumn<double>("weight");
    QTest::addColumn<bool>("useColor");
    for (const double weight : {0.6, 0.9, 0.99}) {
        QTest::addRow("%g, colour", weight) << weight << true;
        QTest::addRow("%g, NO_COLOR", weight) << weight << false; // faint is an attribute, not a colour
    }
}

void TestChartOverlays::smoothedCurveOverFaintRaw()
{
    QFETCH(double, weight);
    QFETCH(bool, useColor);
    const MetricSeries raw = noisy();
    ChartLine line(&raw, QStringLiteral("train"), 39);
    line.smoothing = weight;
    const int cols = 60, rows = 12, plotRows = rows - 2, dotHeight = plotRows * 4;
    const QStringList lines = renderLineChart({line}, options(useColor), cols, rows);
    checkBox(lines, cols, rows);
    QVERIFY2(stripAnsi(lines[0]).contains(QStringLiteral("smoothing %1").arg(weight)), qPrintable(lines[0]));

    // The smoothed curve ends where the debiased EMA ends, at full intensity, in the last dot column.
    const double last = smoothed(raw.visiblePoints(), weight).constLast().y();
    const int dotY = int(std::lround((0.9 - last) / (0.9 - 0.1) * (dotHeight - 1)));
    const Cell end = plotCells(lines[1 + dotY / 4]).constLast();
    QVERIFY2(hasDot(end, 1, dotY), qPrintable(QStringLiteral("no dot at row %1 for %2").arg(dotY).arg(last)));
    QVERIFY(!end.faint);

    // The raw extremes, away from the start where the debiased average is still the raw value, are faint.
    for (const int row : {1, plotRows}) {
        const QList<Cell> cells = plotCells(lines[row]);
        int drawn = 0;
        for (qsizetype c = cells.size() / 4; c < cells.size(); ++c) {
            if (cells[c].ch == u' ')
                continue;
            ++drawn;
            QVERIFY2(cells[c].faint, qPrintable(QStringLiteral("row %1, cell %2").arg(row).arg(c)));
        }
        QVERIFY(drawn > 0);
    }
}

void TestChartOverlays::noSmoothingDrawsAsBefore()
{
    const MetricSeries raw = noisy();
    for (const bool useColor : {true, false}) {
        const QStringList plain = renderLineChart({{&raw, QStringLiteral("train"), 39}}, options(useColor), 60, 12);
        ChartLine off(&raw, QStringLiteral("train"), 39);
        off.smoothing = 0;
        QCOMPARE(renderLineChart({off}, options(useColor), 60, 12), plain);
        for (const QString &line : plain.mid(1, 10)) { // the plot rows: nothing faint
            for (const Cell &cell : plotCells(line))
                QVERIFY(!cell.faint);
        }
        QVERIFY(!stripAnsi(plain[0]).contains(u"smoothing"));
    }
}

void TestChartOverlays::markerColumnAtItsX_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<int>("cols");
    for (const int cols : {40, 61, 120}) {
        for (const double x : {50.0, 100.0, 137.0, 200.0})
            QTest::addRow("step %g, %d columns", x, cols) << x << cols;
    }
}

void TestChartOverlays::markerColumnAtItsX()
{
    QFETCH(double, x);
    QFETCH(int, cols);
    const MetricSeries s = dropping();
    LineChartOptions o = options(true);
    o.markers = {{x, QStringLiteral("job 101: wall time")}};
    const int rows = 12;
    const QStringList lines = renderLineChart({{&s, QStringLiteral("train"), 39}}, o, cols, rows);
    checkBox(lines, cols, rows);

    // Where the curve's buckets put x: the plot spans steps 0..200 over two dots a cell.
    const int plotCols = int(plotCells(lines[1]).size());
    const int expected = std::min(int(x * (plotCols * 2 / 200.0)), plotCols * 2 - 1) / 2;
    const QList<int> columns = markerColumns(lines.mid(1, rows - 3));
    QCOMPARE(columns.size(), qsizetype(rows - 3)); // one row given to the names
    int marked = 0;
    for (const int column : columns) {
        QVERIFY2(column == expected || column == -1,
                 qPrintable(QStringLiteral("%1, not %2").arg(column).arg(expected)));
        marked += column == expected;
    }
    QVERIFY2(marked >= rows - 5, "the curve hides the marker in its own cells only");
    for (qsizetype row = 1; row < rows - 2; ++row) {
        const QList<Cell> cells = plotCells(lines[row]);
        QVERIFY(cells[expected].ch != kMarker || cells[expected].faint);
    }

    const QString names = stripAnsi(lines.constLast());
    QVERIFY2(names.contains(QStringLiteral("\u250a job 101: wall time (step %1)").arg(x)), qPrintable(names));
    QVERIFY(stripAnsi(lines[rows - 2]).contains(u"step")); // the x range stays just under the plot
}

void TestChartOverlays::markersOutsideTheRangeAreLeftOut()
{
    const MetricSeries s = dropping();
    LineChartOptions o = options(false);
    o.markers = {{-10, QStringLiteral("job 99: preempted")}, {250, QStringLiteral("job 101: wall time")}};
    const QStringList with = renderLineChart({{&s}}, o, 60, 12);
    QCOMPARE(with, renderLineChart({{&s}}, options(false), 60, 12));
}

void TestChartOverlays::newestMarkersWhenNotAllFit_data()
{
    QTest::addColumn<int>("cols");
    QTest::addColumn<QStringList>("shown");
    const QString a = QStringLiteral("job 101: wall time (step 20)");
    const QString b = QStringLiteral("job 102: preempted (step 60)");
    const QString c = QStringLiteral("job 103: branched (step 120)");
    QTest::addRow("room for one") << 40 << QStringList{c};
    QTest::addRow("room for two") << 75 << QStringList{b, c};
    QTest::addRow("room for all") << 120 << QStringList{a, b, c};
}

void TestChartOverlays::newestMarkersWhenNotAllFit()
{
    QFETCH(int, cols);
    QFETCH(QStringList, shown);
    const MetricSeries s = dropping();
    LineChartOptions o = options(true);
    o.markers = {{20, QStringLiteral("job 101: wall time")},
                 {60, QStringLiteral("job 102: preempted")},
                 {120, QStringLiteral("job 103: branched")}};
    const QStringList lines = renderLineChart({{&s}}, o, cols, 12);
    checkBox(lines, cols, 12);
    const QString names = stripAnsi(lines.constLast());
    qsizetype at = -1;
    for (const QString &name : shown) {
        const qsizetype found = names.indexOf(QString(kMarker + u' ' + name));
        QVERIFY2(found > at, qPrintable(names)); // shown, oldest first
        at = found;
    }
    QCOMPARE(names.count(kMarker), shown.size());
    // Every marker keeps its column even when its name is left out.
    int columns = 0;
    const QList<Cell> cells = plotCells(lines[5]);
    for (const Cell &cell : cells)
        columns += cell.ch == kMarker;
    QCOMPARE(columns, 3);
}

void TestChartOverlays::boxIsExactWithMarkers()
{
    const MetricSeries s = dropping();
    LineChartOptions o = options(true);
    o.markers = {{100, QStringLiteral("job 101: a very long reason that cannot fit in a narrow chart")}};
    for (int rows = 0; rows <= 8; ++rows) {
        for (const int cols : {0, 5, 12, 30, 80}) {
            ChartLine line(&s, QStringLiteral("train"), 39);
            line.smoothing = 0.9;
            const QStringList lines = renderLineChart({line}, o, cols, rows);
            checkBox(lines, cols, rows);
            // The names take a row only while the plot keeps three.
            if (rows >= 4 && cols >= 30)
                QCOMPARE(stripAnsi(lines.constLast()).contains(u"job 101"), rows >= 6);
        }
    }
}

TORCHDECK_TEST_MAIN(TestChartOverlays)
#include "tst_chartoverlays.moc"
