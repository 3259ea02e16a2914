#include "../metrics/metricevents.h"
#include "term/render/textwidth.h"
#include "term/render/watchscreen.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::term;

namespace {

MetricEvent start(qint64 epochs, qint64 stepsPerEpoch)
{
    MetricEvent e;
    e.kind = MetricEventKind::Start;
    e.epochs = epochs;
    e.stepsPerEpoch = stepsPerEpoch;
    return e;
}

MetricEvent step(qint64 s, double loss, double samplesPerSecond)
{
    return testing::stepEvent(s, loss, kNoCount, samplesPerSecond);
}

MetricEvent epoch(qint64 n, double valLoss, double seconds)
{
    return testing::epochEvent(n, kNoCount, kNoValue, valLoss, seconds);
}

RunSeries trainingRun()
{
    RunSeries run;
    run.apply(start(4, 100));
    for (int i = 1; i <= 250; ++i)
        run.apply(step(i, 1.0 / (1 + i / 20.0), 1234.5));
    run.apply(epoch(1, 0.2, 12.5));
    run.apply(epoch(2, 0.12, 13.0));
    return run;
}

WatchSnapshot snapshot(const RunSeries *run, int runCount = 3)
{
    WatchSnapshot s;
    for (int i = 0; i < runCount; ++i)
        s.runs.append({QStringLiteral("run%1abcd").arg(i, 2, 10, QLatin1Char('0')),
                       QStringLiteral("ae-fashion"),
                       QStringLiteral("sandbox"),
                       QStringLiteral("RUNNING"),
                       2,
                       4,
                       0.0421,
                       35,
                       {QStringLiteral("1234%1").arg(i)}});
    s.selected = runCount > 0 ? 0 : -1;
    s.series = run;
    s.logLines = {QStringLiteral("first log line"), QStringLiteral("Epoch [2/4] Loss: 0.0421")};
    s.helpLine = QStringLiteral("\u2191\u2193 select  c cancel  r resume  q quit");
    return s;
}

// The frame's lines: home first, each line cleared before it, CR LF between them, none after the last.
QStringList frameLines(const QString &frame)
{
    if (!frame.startsWith(QStringLiteral("\x1b[H")))
        return {};
    QStringList lines = frame.mid(3).split(QStringLiteral("\r\n"));
    for (QString &line : lines) {
        if (!line.startsWith(QStringLiteral("\x1b[K")))
            return {};
        line = line.mid(3);
    }
    return lines;
}

QString screenText(const WatchSnapshot &s, int cols, int rows)
{
    return stripAnsi(watchScreenLines(s, cols, rows).join(u'\n'));
}

bool hasBraille(const QString &text)
{
    return std::any_of(text.cbegin(), text.cend(),
                       [](QChar c) { return c.unicode() > 0x2800 && c.unicode() <= 0x28ff; });
}

} // namespace

class TestWatchScreen : public QObject {
    Q_OBJECT
private slots:
    void frameKeepsItsShape_data();
    void frameKeepsItsShape();
    void everySizeKeepsTheShape();
    void showsEveryPart();
    void chartsSideBySideWhenWide();
    void selectionStaysInView();
    void messageLineShows();
    void noSeriesYet();
    void tooSmall();
    void hostileLogLinesAreNeutralised();
    void nextCheckpointAgainstTheSignal();
    void smoothingKeyCycles_data();
    void smoothingKeyCycles();
    void lossChartSmoothedAndMarked();
    void epochChartTakesEpochMarkers();
};

void TestWatchScreen::frameKeepsItsShape_data()
{
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("runs");
    QTest::addColumn<bool>("withSeries");
    for (const auto &[c, r] : {std::pair{80, 24},
                               {200, 60},
                               {40, 12},
                               {100, 30},
                               {99, 30},
                               {20, 5},
                               {19, 5},
                               {20, 4},
                               {10, 3},
                               {1, 1},
                               {300, 100}}) {
        for (const int runs : {0, 1, 25}) {
            QTest::addRow("%dx%d, %d runs", c, r, runs) << c << r << runs << true;
            QTest::addRow("%dx%d, %d runs, no series", c, r, runs) << c << r << runs << false;
        }
    }
}

void TestWatchScreen::frameKeepsItsShape()
{
    QFETCH(int, cols);
    QFETCH(int, rows);
    QFETCH(int, runs);
    QFETCH(bool, withSeries);
    const RunSeries run = trainingRun();
    WatchSnapshot s = snapshot(withSeries ? &run : nullptr, runs);
    s.selected = runs - 1;
    s.message = QStringLiteral("Cancel run run24abcd? y/n");
    const QStringList lines = frameLines(renderWatchScreen(s, cols, rows));
    QCOMPARE(lines.size(), qsizetype(rows));
    for (const QString &line : lines)
        QCOMPARE(displayWidth(line), cols);
}

void TestWatchScreen::everySizeKeepsTheShape()
{
    const RunSeries run = trainingRun();
    WatchSnapshot s = snapshot(&run, 12);
    s.selected = 7;
    s.message = QStringLiteral("a message that is rather long, longer than some of the terminals below");
    for (int cols = 0; cols <= 130; cols += 7) {
        for (int rows = 1; rows <= 46; rows += 3) {
            const QStringList lines = frameLines(renderWatchScreen(s, cols, rows));
            QCOMPARE(lines.size(), qsizetype(rows));
            for (const QString &line : lines)
                QCOMPARE(displayWidth(line), cols);
        }
    }
}

void TestWatchScreen::showsEveryPart()
{
    const RunSeries run = trainingRun();
    const QString text = screenText(snapshot(&run), 80, 24);
    QVERIFY(text.contains(u"RUN"));
    QVERIFY(text.contains(u"run00abcd"));
    QVERIFY(text.contains(u"loss"));
    QVERIFY(hasBraille(text));
    QVERIFY(text.contains(u"epoch time"));
    QVERIFY(text.contains(u"13s"));
    QVERIFY(text.contains(u"\u2588"));         // bars
    QVERIFY(text.contains(u"samples/s 1235")); // 1234.5, four digits
    QVERIFY(text.contains(u"Epoch [2/4] Loss: 0.0421"));
    QVERIFY(text.trimmed().endsWith(u"q quit"));
    const QStringList lines = watchScreenLines(snapshot(&run), 80, 24);
    QVERIFY(lines.last().startsWith(QStringLiteral("\x1b[7m"))); // the help line is a reversed bar
}

void TestWatchScreen::chartsSideBySideWhenWide()
{
    const RunSeries run = trainingRun();
    const QStringList wide = watchScreenLines(snapshot(&run), 120, 30);
    bool together = false;
    for (const QString &line : wide) {
        const QString plain = stripAnsi(line);
        together = together || (plain.startsWith(u"loss") && plain.contains(u"epoch time"));
    }
    QVERIFY(together);
    for (const QString &line : watchScreenLines(snapshot(&run), 80, 30))
        QVERIFY(!(stripAnsi(line).startsWith(u"loss") && stripAnsi(line).contains(u"epoch time")));
}

void TestWatchScreen::selectionStaysInView()
{
    WatchSnapshot s = snapshot(nullptr, 25);
    s.selected = 20;
    const QStringList lines = watchScreenLines(s, 80, 24);
    bool selectedShown = false;
    for (const QString &line : lines) {
        if (stripAnsi(line).startsWith(u"run20abcd")) {
            selectedShown = true;
            QVERIFY(line.startsWith(QStringLiteral("\x1b[7m")));
        }
    }
    QVERIFY(selectedShown);
    QVERIFY(!screenText(s, 80, 24).contains(u"run00abcd"));
}

void TestWatchScreen::messageLineShows()
{
    WatchSnapshot s = snapshot(nullptr);
    s.message = QStringLiteral("Cancel run run00abcd? y/n");
    QVERIFY(screenText(s, 80, 24).contains(u"Cancel run run00abcd? y/n"));
    s.message = QStringLiteral("cancel failed: scancel: invalid job id");
    s.messageIsError = true;
    const QString lines = watchScreenLines(s, 80, 24).join(u'\n');
    QVERIFY(lines.contains(QStringLiteral("\x1b[38;5;196m")));
    s.useColor = false;
    QVERIFY(!watchScreenLines(s, 80, 24).join(u'\n').contains(QStringLiteral("\x1b[38;5")));
}

void TestWatchScreen::noSeriesYet()
{
    WatchSnapshot s = snapshot(nullptr, 0);
    const QString text = screenText(s, 80, 24);
    QVERIFY(text.contains(u"no runs yet"));
    QVERIFY(text.contains(u"no data yet"));
    QVERIFY(text.contains(u"no samples yet"));
}

void TestWatchScreen::tooSmall()
{
    const RunSeries run = trainingRun();
    const QStringList lines = watchScreenLines(snapshot(&run), 19, 5);
    QCOMPARE(lines.first(), QStringLiteral("terminal too small "));
    QCOMPARE(watchScreenLines(snapshot(&run), 10, 3).first(), QStringLiteral("terminal \u2026"));
    QVERIFY(!screenText(snapshot(&run), 20, 5).contains(u"too small"));
}

void TestWatchScreen::hostileLogLinesAreNeutralised()
{
    WatchSnapshot s = snapshot(nullptr);
    s.logLines = {QStringLiteral("\x1b[2J\x1b[31mred\x1b]0;title\x07\tend")};
    s.runs[0].name = QStringLiteral("evil\x1b[H\rname");
    const QString frame = renderWatchScreen(s, 80, 24);
    QVERIFY(!frame.contains(QStringLiteral("\x1b[2J")));
    QVERIFY(!frame.contains(QStringLiteral("\x1b[31m")));
    QVERIFY(!frame.contains(u"title"));
    QCOMPARE(frame.count(QStringLiteral("\x1b[H")), 1);
    QVERIFY(stripAnsi(frame).contains(u"red end"));
}

void TestWatchScreen::nextCheckpointAgainstTheSignal()
{
    const RunSeries run = trainingRun();
    WatchSnapshot s = snapshot(&run);
    QVERIFY(!screenText(s, 120, 24).contains(u"next ckpt")); // unknown: nothing said
    s.runs[0].nextCheckpointIn = 90;
    s.runs[0].signalIn = 600;
    QVERIFY2(screenText(s, 120, 24).contains(u"next ckpt 1m30s before the signal"), qPrintable(screenText(s, 120, 24)));
    s.runs[0].signalIn = 60;
    QVERIFY(screenText(s, 120, 24).contains(u"next ckpt 1m30s after the signal"));
}

void TestWatchScreen::smoothingKeyCycles_data()
{
    QTest::addColumn<double>("current");
    QTest::addColumn<double>("next");
    QTest::addRow("off") << 0.0 << 0.6;
    QTest::addRow("the window's default") << 0.6 << 0.9;
    QTest::addRow("strong") << 0.9 << 0.99;
    QTest::addRow("strongest, back to off") << 0.99 << 0.0;
    QTest::addRow("a weight not in the cycle") << 0.75 << 0.9;
}

void TestWatchScreen::smoothingKeyCycles()
{
    QFETCH(double, current);
    QFETCH(double, next);
    QCOMPARE(nextWatchSmoothing(current), next);
}

void TestWatchScreen::lossChartSmoothedAndMarked()
{
    const RunSeries run = trainingRun();
    WatchSnapshot s = snapshot(&run);
    const QString before = screenText(s, 120, 30);
    QVERIFY(!before.contains(u"smoothing"));
    QVERIFY(!before.contains(QChar(0x250a)));
    const qsizetype dimBefore = watchScreenLines(s, 120, 30).join(u'\n').count(ansi::kDim); // the log is dim
    s.smoothing = 0.6;
    QVERIFY(watchScreenLines(s, 120, 30).join(u'\n').count(ansi::kDim) > dimBefore); // the raw curve, faint
    s.attemptsByStep = {{120, QStringLiteral("job 12340: wall time")}};
    s.attemptsByEpoch = {{2, QStringLiteral("by epoch, not shown")}};
    const QString text = screenText(s, 120, 30);
    QVERIFY(text.contains(u"smoothing 0.6"));
    QVERIFY(text.contains(u"\u250a job 12340: wall time (step 120)"));
    QVERIFY(!text.contains(u"by epoch"));
}

void TestWatchScreen::epochChartTakesEpochMarkers()
{
    RunSeries run; // plain logs: epoch summaries only
    run.apply(start(4, 0));
    for (int e = 1; e <= 4; ++e) {
        MetricEvent summary = epoch(e, 0.3 / e, 10);
        summary.loss = 0.4 / e;
        run.apply(summary);
    }
    WatchSnapshot s = snapshot(&run);
    s.attemptsByStep = {{120, QStringLiteral("by step, not shown")}};
    s.attemptsByEpoch = {{3, QStringLiteral("job 12340: preempted")}};
    const QString text = screenText(s, 80, 30);
    QVERIFY2(text.contains(u"\u250a job 12340: preempted (epoch 3)"), qPrintable(text));
    QVERIFY(!text.contains(u"by step"));
}

TORCHDECK_TEST_MAIN(TestWatchScreen)
#include "tst_watchscreen.moc"
