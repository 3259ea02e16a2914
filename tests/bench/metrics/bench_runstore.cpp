// Prints the run store figures behind issue 5 (`runs` with 1,000 stored runs answers in <= 200 ms) and the
// cost of caching and reloading a 1,000,000-step run.
// Usage: bench_runstore [steps]   (default 1000000); works in a temporary folder.
#include "core/store/runstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUuid>
#include <algorithm>
#include <cstdio>

using namespace torchdeck;

namespace {

double ms(const QElapsedTimer &t)
{
    return t.nsecsElapsed() / 1e6;
}

int fail(const QString &error)
{
    std::fprintf(stderr, "bench_runstore: %s\n", qPrintable(error));
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int steps = argc > 1 ? std::max(1000, std::atoi(argv[1])) : 1000000;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    RunStore store;
    if (const StoreStatus s = store.open(path); !s.ok())
        return fail(s.error);

    const QString spec = QStringLiteral("{\"nodes\":2,\"tasks_per_node\":4,\"time\":\"01:00:00\",\"model\":\"ae\","
                                        "\"epochs\":10,\"batch_size\":64,\"lr\":0.001}");
    const QString script = QStringLiteral("#!/bin/bash\n#SBATCH --nodes=2\n") + QString(1500, u'#') + u'\n';
    QElapsedTimer t;
    t.start();
    QString firstRun;
    for (int i = 0; i < 1000; ++i) {
        RunRecord r;
        r.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        r.name = QStringLiteral("run %1").arg(i);
        r.cluster = i % 3 == 0 ? QStringLiteral("sandbox") : QStringLiteral("hpc");
        r.created = QDateTime::currentDateTimeUtc().addSecs(-static_cast<qint64>(i) * 60);
        r.state = QStringLiteral("completed");
        r.specJson = spec;
        r.script = script;
        r.epochsDone = 10;
        r.epochsTotal = 10;
        r.lastLoss = 0.01 * i;
        if (const StoreStatus s = store.addRun(r); !s.ok())
            return fail(s.error);
        if (i == 0)
            firstRun = r.id;
    }
    std::printf("run store (%s)\n", qPrintable(path));
    std::printf("  add 1,000 runs, one transaction each   %8.1f ms\n", ms(t));
    double best = 1e30;
    qsizetype listed = 0;
    for (int r = 0; r < 10; ++r) {
        t.restart();
        const auto runs = store.runs();
        best = std::min(best, ms(t));
        listed = runs.value.size();
    }
    std::printf("  list %lld runs (all columns)           %8.2f ms\n", listed, best);
    {
        RunStore cold; // a new process's first call: open + migrate check + list
        t.restart();
        if (const StoreStatus s = cold.open(path); !s.ok())
            return fail(s.error);
        const auto runs = cold.runs();
        std::printf("  open + list, new connection            %8.2f ms\n", ms(t));
    }

    JobRecord job;
    job.runId = firstRun;
    job.jobId = QStringLiteral("4242");
    if (const StoreStatus saved = store.saveJob(job); !saved.ok())
        qFatal("%s", qPrintable(saved.error));
    QList<MetricEvent> batch;
    const int batchSize = 10000;
    qint64 stored = 0; // the job's metrics offset so far
    t.restart();
    for (int s = 1; s <= steps; ++s) {
        MetricEvent e;
        e.time = 1717171717.25 + s * 0.01;
        e.epoch = (s - 1) / 938 + 1;
        e.step = s;
        e.epochStep = (s - 1) % 938 + 1;
        e.stepsPerEpoch = 938;
        e.loss = 0.5 / (1 + s * 1e-4);
        e.lr = 0.001;
        e.samplesPerSecond = 1234.5;
        batch.append(e);
        if (batch.size() == batchSize || s == steps) {
            const StoreResult<bool> st = store.appendMetrics(firstRun, 0, batch, stored, s * 180LL);
            if (!st.ok())
                return fail(st.error);
            stored = s * 180LL;
            batch.clear();
        }
    }
    const double insert = ms(t);
    std::printf("  cache %d step events, %d per tx   %8.0f ms  (%.0f rows/s)\n", steps, batchSize, insert,
                steps / insert * 1e3);
    t.restart();
    const auto series = store.runSeries(firstRun);
    if (!series.ok())
        return fail(series.error);
    const double load = ms(t);
    std::printf("  reload as RunSeries                    %8.0f ms  (%.0f rows/s)\n", load, steps / load * 1e3);
    store.close();
    std::printf("  file size                              %8.1f MiB (%.0f bytes/step)\n",
                QFileInfo(path).size() / 1048576.0, double(QFileInfo(path).size()) / steps);
    return 0;
}
