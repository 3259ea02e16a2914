// Prints the redraw time of `torchdeck watch` for a 1,000,000-point run (issue 5: <= 50 ms), and its ratio
// to a 1,000-point run: the chart decimates to one bucket a dot column, so the points cost one linear pass.
// Usage: bench_watch [points] [cols] [rows]   (default 1000000 200 60)
#include "term/render/watchscreen.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace torchdeck;
using namespace torchdeck::term;

namespace {

constexpr int kRepeats = 31;
constexpr qint64 kStepsPerEpoch = 938;

MetricEvent startEvent(int points)
{
    MetricEvent start;
    start.kind = MetricEventKind::Start;
    start.epochs = points / kStepsPerEpoch + 1;
    start.stepsPerEpoch = kStepsPerEpoch;
    return start;
}

// Steps [from, to] as the trainer reports them: loss, samples/s, an epoch summary every kStepsPerEpoch steps.
void addSteps(RunSeries *run, int from, int to, int attempt)
{
    for (int i = from; i <= to; ++i) {
        MetricEvent e;
        e.kind = MetricEventKind::Step;
        e.step = i;
        e.loss = 0.5 / (1 + i * 1e-4) + ((i * 7919) % 1000) * 1e-5;
        e.samplesPerSecond = 1234.5 + i % 97;
        run->apply(e, attempt);
        if (i % kStepsPerEpoch == 0) {
            MetricEvent epoch;
            epoch.kind = MetricEventKind::Epoch;
            epoch.epoch = i / kStepsPerEpoch;
            epoch.valLoss = e.loss * 1.1;
            epoch.seconds = 12.0 + (i / kStepsPerEpoch) % 5 * 0.3;
            run->apply(epoch, attempt);
        }
    }
}

RunSeries makeRun(int points)
{
    RunSeries run;
    run.apply(startEvent(points));
    addSteps(&run, 1, points, 0);
    return run;
}

// The same run killed at 90 % and resumed from a checkpoint at 80 %: a tenth of the points are discarded
// and drawn dimmed.
RunSeries makeResumedRun(int points)
{
    RunSeries run;
    run.apply(startEvent(points));
    addSteps(&run, 1, points / 10 * 9, 0);
    MetricEvent resume = startEvent(points);
    resume.resumed = true;
    resume.resumeStep = points / 10 * 8;
    run.apply(resume, 1);
    addSteps(&run, points / 10 * 8 + 1, points, 1);
    return run;
}

WatchSnapshot makeSnapshot(const RunSeries &run)
{
    WatchSnapshot s;
    for (int i = 0; i < 8; ++i)
        s.runs.append({QStringLiteral("1a2b3c%1d").arg(i),
                       QStringLiteral("ae-fashion-mnist"),
                       QStringLiteral("torchdeck-sandbox"),
                       QStringLiteral("RUNNING"),
                       2,
                       4,
                       0.0421,
                       35,
                       {QStringLiteral("%1").arg(1000 + i)}});
    s.selected = 3;
    s.series = &run;
    for (int i = 0; i < 20; ++i)
        s.logLines.append(QStringLiteral("Epoch [2/4], Step [%1/938], Loss: 0.0412").arg(i));
    s.helpLine = QStringLiteral("\u2191\u2193 select  c cancel  r resume  q quit");
    return s;
}

// Median milliseconds of renderWatchScreen, the UTF-8 encoding for the terminal included.
double medianRedrawMs(const WatchSnapshot &s, int cols, int rows, qsizetype *bytes)
{
    QList<double> ms;
    for (int r = 0; r < kRepeats; ++r) {
        QElapsedTimer t;
        t.start();
        const QByteArray frame = renderWatchScreen(s, cols, rows).toUtf8();
        ms.append(t.nsecsElapsed() / 1e6);
        *bytes = frame.size();
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

QByteArray grouped(qint64 n)
{
    QByteArray digits = QByteArray::number(n);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, ',');
    return digits;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int points = argc > 1 ? std::max(1000, std::atoi(argv[1])) : 1000000;
    const int cols = argc > 2 ? std::atoi(argv[2]) : 200;
    const int rows = argc > 3 ? std::atoi(argv[3]) : 60;

    const RunSeries big = makeRun(points);
    const RunSeries small = makeRun(1000);
    const RunSeries resumed = makeResumedRun(points);
    qsizetype bigBytes = 0, smallBytes = 0, resumedBytes = 0;
    const double bigMs = medianRedrawMs(makeSnapshot(big), cols, rows, &bigBytes);
    const double smallMs = medianRedrawMs(makeSnapshot(small), cols, rows, &smallBytes);
    const double resumedMs = medianRedrawMs(makeSnapshot(resumed), cols, rows, &resumedBytes);

    std::printf("watch redraw, %s points, %dx%d: median %.2f ms of %d (target <= 50 ms), %lld bytes a frame\n",
                grouped(points).constData(), cols, rows, bigMs, kRepeats, static_cast<long long>(bigBytes));
    std::printf("watch redraw, %s points, %dx%d: median %.2f ms -> the %sx larger run costs %.1fx\n",
                grouped(1000).constData(), cols, rows, smallMs, grouped(points / 1000).constData(), bigMs / smallMs);
    const MetricSeries &loss = resumed.series(SeriesKind::TrainLoss);
    std::printf("watch redraw, %s points resumed at 80%% (%s discarded, dimmed), %dx%d: median %.2f ms\n",
                grouped(loss.size()).constData(), grouped(loss.size() - loss.visibleCount()).constData(), cols, rows,
                resumedMs);
    return 0;
}
