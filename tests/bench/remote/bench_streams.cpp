// A front of the real agent on the sandbox, for scripts/bench-remote (which starts the sandbox, the agent's
// profile and the jobs):
//   bench_streams chart CLUSTER RUN METRICS_FILE [LINES]
//     writes epoch lines into a running job's metrics file, as the job would, and prints how long each took to
//     reach the window's series (this process, a front that shows the run) and `torchdeck watch --plain`
//     (a child process): "chart latency, N lines: p50 X ms, p99 Y ms".
//   bench_streams look CLUSTER RUN SECONDS
//     shows RUN for SECONDS, as the window does (its file streams fast), then detaches.
#include "client/agentclient.h"
#include "core/store/runstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

using namespace torchdeck;

namespace {

QString torchdeckProgram()
{
    return QStringLiteral(TORCHDECK_BIN);
}

qint64 nowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Returns when done() holds, checked every millisecond, or after timeoutMs; events are handled meanwhile
// (the latencies are taken in the slots that receive them, not here).
void waitFor(const std::function<bool()> &done, int timeoutMs)
{
    if (done())
        return;
    QEventLoop loop;
    QElapsedTimer timer;
    timer.start();
    QTimer tick;
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        if (done() || timer.elapsed() >= timeoutMs)
            loop.quit();
    });
    tick.start();
    loop.exec();
}

void printLatencies(const char *where, QList<qint64> us, int asked)
{
    std::sort(us.begin(), us.end());
    if (us.isEmpty())
        return (void)std::printf("chart latency (%s): no line arrived of %d\n", where, asked);
    const auto at = [&](double q) { return double(us.at(qsizetype(q * double(us.size() - 1)))) / 1000.0; };
    std::printf("chart latency, %lld lines: p50 %.1f ms, p99 %.1f ms (%s; max %.1f ms, %lld of %d arrived; "
                "targets: p50 <= 10, p99 <= 50)\n",
                static_cast<long long>(us.size()), at(0.5), at(0.99), where, at(1.0), static_cast<long long>(us.size()),
                asked);
}

bool attach(AgentClient &client)
{
    client.attach();
    waitFor([&] { return client.isAttached(); }, 30000);
    if (!client.isAttached())
        std::fprintf(stderr, "bench_streams: cannot attach to the agent\n");
    return client.isAttached();
}

int chart(AgentClient &client, const QString &cluster, const QString &runId, const QString &metricsPath, int lines)
{
    client.lookAt(cluster, {runId});
    QFile file(metricsPath);
    if (!file.open(QIODevice::Append))
        return std::fprintf(stderr, "bench_streams: cannot append to %s\n", qPrintable(metricsPath)), 1;
    qint64 inWindow = 0;
    qint64 inWatch = 0;
    qint64 writtenUs = 0;
    QList<qint64> windowUs;
    QList<qint64> watchUs;
    QObject::connect(&client, &AgentClient::metricsArrived, &client, [&](const QString &run) {
        const RunSeries *series = run == runId ? client.series(runId) : nullptr;
        if (series && series->progress().epochsDone > inWindow) {
            inWindow = series->progress().epochsDone;
            windowUs.append(nowUs() - writtenUs);
        }
    });
    QProcess watch;
    static const QRegularExpression epochShown(QStringLiteral(" epoch (\\d+)/"));
    QObject::connect(&watch, &QProcess::readyReadStandardOutput, &watch, [&] {
        while (watch.canReadLine()) {
            const QRegularExpressionMatch m = epochShown.match(QString::fromUtf8(watch.readLine()));
            if (m.hasMatch() && m.captured(1).toLongLong() > inWatch) {
                inWatch = m.captured(1).toLongLong();
                watchUs.append(nowUs() - writtenUs);
            }
        }
    });
    watch.start(torchdeckProgram(), {QStringLiteral("watch"), runId, QStringLiteral("--plain")});
    const auto write = [&](int epoch) {
        const QByteArray line = QStringLiteral(R"({"schema":1,"event":"epoch","time":%1,"epoch":%2,"epochs":1000000,)"
                                               R"("train_loss":0.5,"val_loss":0.4,"seconds":0.05})"
                                               "\n")
                                    .arg(double(QDateTime::currentMSecsSinceEpoch()) / 1e3, 0, 'f', 3)
                                    .arg(epoch)
                                    .toUtf8();
        writtenUs = nowUs();
        file.write(line);
        file.flush();
        waitFor([&] { return inWindow >= epoch && inWatch >= epoch; }, 5000);
    };
    // The first line finds the watch started and the stream at its fast pace; not counted.
    const qint64 first = client.series(runId) ? client.series(runId)->progress().epochsDone + 1 : 1;
    write(int(first));
    waitFor([&] { return inWindow >= first && inWatch >= first; }, 30000);
    windowUs.clear();
    watchUs.clear();
    for (int i = 1; i <= lines; ++i) {
        QElapsedTimer gap; // irregular gaps, as a trainer's lines come
        gap.start();
        waitFor([&] { return gap.elapsed() >= 20 + (i * 37) % 80; }, 1000);
        write(int(first) + i);
    }
    printLatencies("the window's series", windowUs, lines);
    printLatencies("torchdeck watch --plain", watchUs, lines);
    watch.terminate();
    watch.waitForFinished(5000);
    return 0;
}

int look(AgentClient &client, const QString &cluster, const QString &runId, int seconds)
{
    client.lookAt(cluster, {runId});
    QEventLoop loop;
    QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    if (args.size() < 3 || (args.at(0) != u"chart" && args.at(0) != u"look")) {
        std::fprintf(stderr,
                     "usage: bench_streams chart CLUSTER RUN METRICS_FILE [LINES] | look CLUSTER RUN SECONDS\n");
        return 2;
    }
    AgentClient::setAgentProgram(torchdeckProgram());
    RunStore store;
    const StoreStatus opened = store.open(RunStore::defaultPath());
    if (!opened.ok())
        return std::fprintf(stderr, "bench_streams: %s\n", qPrintable(opened.error)), 1;
    AgentClient::Options options;
    options.front = QStringLiteral("window");
    AgentClient client(options, &store);
    if (!attach(client))
        return 1;
    if (args.at(0) == u"look")
        return look(client, args.at(1), args.at(2), args.value(3).toInt());
    if (args.size() < 4)
        return 2;
    return chart(client, args.at(1), args.at(2), args.at(3), args.size() > 4 ? args.at(4).toInt() : 200);
}
