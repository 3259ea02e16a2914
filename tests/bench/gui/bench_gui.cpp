// Benchmark of the desktop front (issue 6); prints its figures, asserts nothing. Offscreen platform.
//   start:   process start to the main window's first paint (a fresh child process, median of 5), and
//            main() to first paint inside it
//   redraw:  a full redraw and repaint of the charts of a 1,000,000-point run (decimated), median of 20
//   append:  1,000 points/s for 5 s into the shown charts: CPU time of the process / wall time
//   memory:  resident memory with 10 runs x 100,000 points loaded and one of them shown
#include "core/store/runmetrics.h"
#include "gui/mainwindow.h"
#include "gui/runcharts.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>

using namespace torchdeck;

namespace {
QElapsedTimer g_sinceMain;

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    return values.isEmpty() ? 0 : values.at(values.size() / 2);
}

double cpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

double residentMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').constFirst().toDouble() / 1024.0;
    }
    return 0;
}

QList<MetricEvent> steps(qint64 first, qint64 count)
{
    QList<MetricEvent> events;
    events.reserve(count);
    for (qint64 i = first; i < first + count; ++i) {
        MetricEvent e;
        e.kind = MetricEventKind::Step;
        e.step = i;
        e.loss = 1.0 / std::sqrt(double(i)) + 0.01 * std::sin(double(i) * 0.37);
        events.append(e);
    }
    return events;
}

class PaintWatcher : public QObject {
public:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && !m_done) {
            m_done = true;
            std::printf("painted %.1f\n", double(g_sinceMain.nsecsElapsed()) / 1e6);
            std::fflush(stdout);
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool m_done = false;
};

int child(int argc, char **argv)
{
    QApplication app(argc, argv);
    MainWindow window;
    PaintWatcher watcher;
    window.installEventFilter(&watcher);
    window.show();
    return QApplication::exec();
}

void benchStart(const QString &self)
{
    QList<double> wall;
    QList<double> inside;
    for (int i = 0; i < 5; ++i) {
        QProcess process;
        QElapsedTimer timer;
        timer.start();
        process.start(self, {QStringLiteral("--child")});
        process.waitForFinished(30000);
        wall.append(double(timer.nsecsElapsed()) / 1e6);
        const QByteArray out = process.readAllStandardOutput();
        const qsizetype at = out.indexOf("painted ");
        if (at >= 0)
            inside.append(out.mid(at + 8).trimmed().toDouble());
    }
    std::printf("start to first painted window: %.1f ms wall per process (median of 5; includes exit), "
                "main() to first paint %.1f ms (limit 500 ms)\n",
                median(wall), median(inside));
}

void benchCharts()
{
    RunMetrics metrics;
    const qint64 total = 1'000'000;
    for (qint64 first = 1; first <= total; first += 100'000)
        metrics.ingest(steps(first, 100'000));
    RunCharts charts;
    charts.resize(1280, 760);
    charts.show();
    charts.setRun(&metrics);
    QList<double> times;
    for (int i = 0; i < 20; ++i) {
        QElapsedTimer timer;
        timer.start();
        charts.redraw();
        charts.repaint();
        times.append(double(timer.nsecsElapsed()) / 1e6);
    }
    std::printf("full redraw + repaint of a %lld-point run (decimated to %lld drawn points): median %.2f ms, "
                "max %.2f ms (limit 16 ms)\n",
                total, qint64(charts.drawnPoints(SeriesKind::TrainLoss).size()), median(times),
                *std::max_element(times.cbegin(), times.cend()));

    // Live: 100 points every 100 ms; the charts coalesce redraws (100 ms) as in the window.
    qint64 next = total + 1;
    QTimer feed;
    feed.setInterval(100);
    QObject::connect(&feed, &QTimer::timeout, [&] {
        metrics.ingest(steps(next, 100));
        next += 100;
    });
    QElapsedTimer wall;
    const double cpu0 = cpuSeconds();
    wall.start();
    feed.start();
    QTimer::singleShot(5000, qApp, &QCoreApplication::quit);
    QApplication::exec();
    const double busy = (cpuSeconds() - cpu0) / (double(wall.nsecsElapsed()) / 1e9);
    std::printf("appending 1,000 points/s to the shown 1,000,000-point run for 5 s: UI thread busy %.1f%% "
                "(process CPU / wall; limit 10%%)\n",
                busy * 100);
}

void benchMemory()
{
    const double before = residentMb();
    std::vector<std::unique_ptr<RunMetrics>> runs;
    for (int r = 0; r < 10; ++r) {
        runs.push_back(std::make_unique<RunMetrics>());
        runs.back()->ingest(steps(1, 100'000));
    }
    RunCharts charts;
    charts.resize(1280, 760);
    charts.show();
    charts.setRun(runs.front().get());
    charts.repaint();
    std::printf("10 runs x 100,000 points loaded, one shown: resident %.0f MB (%.0f MB before them; limit 200 MB)\n",
                residentMb(), before);
}
} // namespace

int main(int argc, char **argv)
{
    g_sinceMain.start();
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir home;
    if (qEnvironmentVariableIsEmpty("TORCHDECK_DATA_DIR")) { // an empty store and no profiles, not the user's
        qputenv("TORCHDECK_DATA_DIR", QFile::encodeName(home.path()));
        qputenv("TORCHDECK_CONFIG_DIR", QFile::encodeName(home.path()));
    }
    QStandardPaths::setTestModeEnabled(true);
    if (argc > 1 && qstrcmp(argv[1], "--child") == 0)
        return child(argc, argv);
    QApplication app(argc, argv);
    benchStart(QCoreApplication::applicationFilePath());
    benchCharts();
    benchMemory();
    return 0;
}
