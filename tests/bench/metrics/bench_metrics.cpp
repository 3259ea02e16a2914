// Prints the metrics figures of issue 4 (ingestion >= 1,000,000 JSON lines/s on one core) and the decimation
// cost behind issues 5 and 6 (1,000,000-point runs redrawn in <= 16 ms / 50 ms).
// Usage: bench_metrics [lines]   (default 1000000)
#include "core/metrics/metricsreader.h"
#include "core/metrics/runseries.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cstdio>

using namespace torchdeck;

namespace {

// Step lines exactly as trainer/metrics/run_reporter.cpp writes them.
QByteArray stepLines(int n)
{
    QByteArray text;
    text.reserve(qsizetype(n) * 190);
    char buf[256];
    for (int i = 1; i <= n; ++i) {
        const int len =
            std::snprintf(buf, sizeof buf,
                          "{\"schema\":1,\"event\":\"step\",\"time\":%.3f,\"epoch\":%d,\"step\":%d,\"epoch_step\":%d,"
                          "\"steps_per_epoch\":938,\"loss\":%.9g,\"lr\":%.9g,\"samples_per_s\":%.9g}\n",
                          1717171717.25 + i * 0.013, (i - 1) / 938 + 1, i, (i - 1) % 938 + 1,
                          0.5 / (1 + i * 1e-4) + (i % 13) * 1e-3, 0.001 * (1.0 - i * 1e-7), 1234.5 + i % 97);
        text.append(buf, len);
    }
    return text;
}

template <typename F> double bestSeconds(int repeats, F &&f)
{
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        QElapsedTimer t;
        t.start();
        f();
        best = std::min(best, t.nsecsElapsed() / 1e9);
    }
    return best;
}

double sink = 0; // keeps results alive

void benchParsing(int n)
{
    const QByteArray text = stepLines(n);
    QList<QByteArrayView> lines;
    lines.reserve(n);
    for (qsizetype pos = 0; pos < text.size();) {
        const qsizetype nl = text.indexOf('\n', pos);
        lines.append(QByteArrayView(text).sliced(pos, nl - pos));
        pos = nl + 1;
    }
    std::printf("metrics ingestion, %d step lines of %.0f bytes, one thread\n", n, double(text.size()) / n);

    MetricsLineParser parser;
    const double simd = bestSeconds(3, [&] {
        for (const QByteArrayView line : lines)
            sink += parser.parse(line).event.loss;
    });
    std::printf("  simdjson parseMetricsLine      %10.0f lines/s  (%.0f ns/line)\n", n / simd, simd * 1e9 / n);

    const double reader = bestSeconds(3, [&] {
        MetricsReader r;
        for (qsizetype pos = 0; pos < text.size(); pos += 65536)
            sink += r.feed(QByteArrayView(text).sliced(pos, std::min<qsizetype>(65536, text.size() - pos))).size();
    });
    std::printf("  MetricsReader, 64 KiB chunks   %10.0f lines/s  (%.0f MB/s, line assembly included)\n", n / reader,
                text.size() / reader / 1e6);

    const double qjson = bestSeconds(1, [&] {
        for (const QByteArrayView line : lines) {
            const QJsonObject o = QJsonDocument::fromJson(line.toByteArray()).object();
            sink += o.value(u"loss").toDouble() + o.value(u"step").toInteger() + o.value(u"lr").toDouble() +
                    o.value(u"samples_per_s").toDouble() + o.value(u"epoch").toInteger() +
                    (o.value(u"event").toString() == u"step");
        }
    });
    std::printf("  QJsonDocument, same fields     %10.0f lines/s  -> simdjson is %.1fx faster\n", n / qjson,
                qjson / simd);

    RunSeries run;
    MetricsReader r;
    const QList<MetricEvent> events = r.feed(text);
    const double apply = bestSeconds(1, [&] { run.apply(events); });
    std::printf("  RunSeries::apply               %10.0f events/s\n", n / apply);
}

void benchPatterns(int n)
{
    QByteArray text;
    for (int i = 1; i <= n; ++i)
        text += "Epoch [" + QByteArray::number(i / 600 + 1) + "/10], Step [" + QByteArray::number(i % 600 + 1) +
                "/600], Loss: " + QByteArray::number(1.0 / i, 'f', 4) + (i % 5 == 0 ? "\nsome other output\n" : "\n");
    MetricsReader r(MetricsReader::Format::LogPatterns);
    const double s = bestSeconds(1, [&] { sink += r.feed(text).size(); });
    std::printf("log patterns (defaults, %lld lines)  %10.0f lines/s\n", r.counts().lines, r.counts().lines / s);
}

void benchDecimation(int n)
{
    MetricSeries s;
    s.reserve(n);
    const double append = bestSeconds(1, [&] {
        for (int i = 1; i <= n; ++i)
            s.append(i, 0.5 / (1 + i * 1e-4) + ((i * 7919) % 1000) * 1e-4 + (i % 100003 == 0 ? 1.0 : 0.0), 0);
    });
    std::printf("decimation of %d points (min/max per column)\n", n);
    std::printf("  append                         %10.1f ms\n", append * 1e3);
    for (const int columns : {200, 1920, 3840}) {
        QList<QPointF> line;
        const double full = bestSeconds(20, [&] { line = s.decimated(1, n, columns); });
        std::printf("  full range, %4d columns        %10.2f ms  -> %lld points\n", columns, full * 1e3, line.size());
    }
    QList<QPointF> zoom;
    const double part = bestSeconds(20, [&] { zoom = s.decimated(n * 0.4, n * 0.5, 1920); });
    std::printf("  10%% zoom, 1920 columns         %10.2f ms  -> %lld points\n", part * 1e3, zoom.size());
    // After a resume: the visible curve spans two segments.
    s.discardAfter(n * 0.9);
    for (int i = int(n * 0.9) + 1; i <= n; ++i)
        s.append(i, 0.3, 1);
    const double twoAttempts = bestSeconds(20, [&] { sink += s.buckets(1, n, 1920).size(); });
    std::printf("  two attempts, 1920 buckets     %10.2f ms\n", twoAttempts * 1e3);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int n = argc > 1 ? std::max(1000, std::atoi(argv[1])) : 1000000;
    benchParsing(n);
    benchPatterns(std::min(n, 200000));
    benchDecimation(n);
    return sink == 42.4242 ? 1 : 0;
}
