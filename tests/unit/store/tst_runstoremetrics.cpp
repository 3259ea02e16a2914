#include "core/metrics/metricsreader.h"
#include "core/store/runstore.h"
#include "testmain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
QByteArray sample(const char *name)
{
    QFile f(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/") + QLatin1StringView(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QList<MetricEvent> events(const char *name)
{
    MetricsReader reader;
    return reader.feed(sample(name));
}
} // namespace

class TestRunStoreMetrics : public QObject {
    Q_OBJECT
    void addRunWithJobs(int attempts);
    QTemporaryDir m_dir;
    QString m_path;
    RunStore m_store;
    const QString m_run = QStringLiteral("9b1c2d4e-0000-4000-8000-000000000001");

private slots:
    void init();
    void cleanup();
    void eventsRoundTrip();
    void replayEqualsLiveSeries();
    void offsetCommitsWithTheEvents();
    void tailRestartLosesAndRepeatsNothing();
    void twoReadersStoreEachLineOnce();
    void unknownRunIsAnError();
    void extrasAndSourceRoundTrip();
    void loggerFilesMoveOnceFromWhereTheyWere();
};

void TestRunStoreMetrics::extrasAndSourceRoundTrip()
{
    addRunWithJobs(1);
    MetricEvent e;
    e.kind = MetricEventKind::Epoch;
    e.source = MetricSource::LoggerFiles;
    e.epoch = 2;
    e.extras = {{QStringLiteral("val_f1"), 0.5}, {QStringLiteral("grad/norm \"x\""), -1.25}};
    MetricEvent log;
    log.source = MetricSource::Log;
    log.step = 3;
    log.loss = 0.25;
    log.rankComputeSeconds = {0.5, 1.5}; // the trainer's per-rank keys, kept with the step
    log.rankWaitSeconds = {1.0, 0.0};
    QVERIFY(m_store.appendMetrics(m_run, 0, {e, log}).ok());
    const auto stored = m_store.metrics(m_run);
    QVERIFY2(stored.ok(), qPrintable(stored.error));
    QCOMPARE(stored.value.size(), 2);
    QCOMPARE(stored.value[0].event.source, MetricSource::LoggerFiles);
    QCOMPARE(stored.value[0].event.extras, e.extras); // in the logger's order
    QCOMPARE(stored.value[1].event.source, MetricSource::Log);
    QVERIFY(stored.value[1].event.extras.isEmpty());
    QCOMPARE(stored.value[1].event.rankComputeSeconds, log.rankComputeSeconds);
    QCOMPARE(stored.value[1].event.rankWaitSeconds, log.rankWaitSeconds);
    QVERIFY(stored.value[0].event.rankComputeSeconds.isEmpty());
    const auto series = m_store.runSeries(m_run);
    QCOMPARE(series.value.extraNames(true), (QStringList{QStringLiteral("val_f1"), QStringLiteral("grad/norm \"x\"")}));
}

void TestRunStoreMetrics::loggerFilesMoveOnceFromWhereTheyWere()
{
    addRunWithJobs(2);
    const QString path = QStringLiteral("/work/runs/r/code/runs/exp/events.out.tfevents.1");
    MetricEvent e;
    e.source = MetricSource::LoggerFiles;
    e.step = 1;
    e.loss = 0.5;
    const LoggerFileRecord fresh{path, 1, 0, 0};
    const LoggerFileRecord read{path, 1, 120, 130}; // a torn last record: read to 120 of 130 bytes
    QCOMPARE(m_store.appendLoggerFileMetrics(m_run, fresh, read, {e}).value, true);
    // A second front that read the same new file: nothing stored twice.
    const auto again = m_store.appendLoggerFileMetrics(m_run, fresh, read, {e});
    QVERIFY(again.ok());
    QCOMPARE(again.value, false);
    e.step = 2;
    QCOMPARE(m_store.appendLoggerFileMetrics(m_run, read, {path, 1, 200, 200}, {e}).value, true);
    QCOMPARE(m_store.appendLoggerFileMetrics(m_run, read, {path, 1, 300, 300}, {e}).value, false);
    const auto files = m_store.loggerFiles(m_run);
    QVERIFY2(files.ok(), qPrintable(files.error));
    QCOMPARE(files.value.size(), 1);
    QCOMPARE(files.value[0].attempt, 1);
    QCOMPARE(files.value[0].offset, 200);
    QCOMPARE(files.value[0].size, 200);
    const auto stored = m_store.metrics(m_run);
    QCOMPARE(stored.value.size(), 2);
    QCOMPARE(stored.value[1].attempt, 1);
    QCOMPARE(stored.value[1].event.step, 2);
}

void TestRunStoreMetrics::init()
{
    m_path = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".sqlite"));
    const StoreStatus status = m_store.open(m_path);
    QVERIFY2(status.ok(), qPrintable(status.error));
}

void TestRunStoreMetrics::cleanup()
{
    m_store.close();
}

void TestRunStoreMetrics::addRunWithJobs(int attempts)
{
    RunRecord run;
    run.id = m_run;
    run.name = QStringLiteral("r");
    QVERIFY(m_store.addRun(run).ok());
    for (int a = 0; a < attempts; ++a) {
        JobRecord j;
        j.runId = m_run;
        j.attempt = a;
        j.jobId = QString::number(100 + a);
        QVERIFY(m_store.saveJob(j).ok());
    }
}

void TestRunStoreMetrics::eventsRoundTrip()
{
    addRunWithJobs(2);
    const QList<MetricEvent> first = events("attempt1.jsonl");
    QList<MetricEvent> second = events("attempt2.jsonl");
    second.first().resumeSkipped = 3; // its start fell back over three torn checkpoints
    QVERIFY(m_store.appendMetrics(m_run, 0, first).ok());
    QVERIFY(m_store.appendMetrics(m_run, 1, second).ok());
    m_store.close();
    QVERIFY(m_store.open(m_path).ok());
    const auto stored = m_store.metrics(m_run);
    QVERIFY2(stored.ok(), qPrintable(stored.error));
    const QList<MetricEvent> all = first + second;
    QCOMPARE(stored.value.size(), all.size());
    QCOMPARE(m_store.metricsCount(m_run).value, all.size());
    for (qsizetype i = 0; i < all.size(); ++i) {
        const MetricEvent &a = all[i];
        const MetricEvent &b = stored.value[i].event;
        QCOMPARE(stored.value[i].attempt, i < first.size() ? 0 : 1);
        QCOMPARE(b.kind, a.kind);
        QCOMPARE(b.time, a.time);
        QCOMPARE(b.step, a.step);
        QCOMPARE(b.epoch, a.epoch);
        QCOMPARE(b.epochStep, a.epochStep);
        QCOMPARE(b.stepsPerEpoch, a.stepsPerEpoch);
        QCOMPARE(std::isnan(b.loss), std::isnan(a.loss));
        if (!std::isnan(a.loss))
            QCOMPARE(b.loss, a.loss);
        QCOMPARE(std::isnan(b.valAccuracy), std::isnan(a.valAccuracy));
        QCOMPARE(b.path, a.path);
        QCOMPARE(b.bytes, a.bytes);
        QCOMPARE(b.reason, a.reason);
        QCOMPARE(b.resumed, a.resumed);
        QCOMPARE(b.resumeStep, a.resumeStep);
        QCOMPARE(b.resumeSkipped, a.resumeSkipped);
        QCOMPARE(b.resumePath, a.resumePath);
        QCOMPARE(b.model, a.model);
        QCOMPARE(b.worldSize, a.worldSize);
        QCOMPARE(b.exitCode, a.exitCode);
    }
}

void TestRunStoreMetrics::replayEqualsLiveSeries()
{
    addRunWithJobs(2);
    RunSeries live;
    live.apply(events("attempt1.jsonl"), 0);
    live.apply(events("attempt2.jsonl"), 1);
    QVERIFY(m_store.appendMetrics(m_run, 0, events("attempt1.jsonl")).ok());
    QVERIFY(m_store.appendMetrics(m_run, 1, events("attempt2.jsonl")).ok());
    const auto replayed = m_store.runSeries(m_run);
    QVERIFY2(replayed.ok(), qPrintable(replayed.error));
    for (int k = 0; k < kSeriesKindCount; ++k) {
        const auto kind = static_cast<SeriesKind>(k);
        QCOMPARE(replayed.value.series(kind).visiblePoints(), live.series(kind).visiblePoints());
        QCOMPARE(replayed.value.series(kind).discardedPoints(), live.series(kind).discardedPoints());
    }
    QCOMPARE(replayed.value.series(SeriesKind::TrainLoss).discardedPoints().size(), 7);
    QCOMPARE(replayed.value.checkpoints().size(), live.checkpoints().size());
    QCOMPARE(replayed.value.info().starts, 2);
    QCOMPARE(replayed.value.info().stopReason, QStringLiteral("done"));
    QCOMPARE(replayed.value.progress().etaSeconds, live.progress().etaSeconds);
}

void TestRunStoreMetrics::offsetCommitsWithTheEvents()
{
    addRunWithJobs(1);
    const QList<MetricEvent> evs = events("attempt2.jsonl");
    const StoreResult<bool> appended = m_store.appendMetrics(m_run, 0, evs.mid(0, 10), 0, 1500);
    QVERIFY(appended.ok() && appended.value);
    QCOMPARE(m_store.jobs(m_run).value.first().offsets.metricsOffset, 1500);
    // Attempt 3 does not exist: nothing of this batch may stay.
    const StoreResult<bool> failed = m_store.appendMetrics(m_run, 3, evs.mid(10), 0, 99999);
    QVERIFY(!failed.ok());
    QVERIFY2(failed.error.contains(QStringLiteral("no attempt 3")), qPrintable(failed.error));
    QCOMPARE(m_store.metricsCount(m_run).value, 10);
    QCOMPARE(m_store.jobs(m_run).value.first().offsets.metricsOffset, 1500);
}

// The dashboard stops at random points (crash, restart) and resumes from what the store says.
void TestRunStoreMetrics::tailRestartLosesAndRepeatsNothing()
{
    addRunWithJobs(1);
    const QByteArray file = sample("attempt2.jsonl");
    const qsizetype expected = events("attempt2.jsonl").size();
    qint64 delivered = 0; // bytes the remote side has handed over so far, growing like a live file
    for (const qint64 cut : std::initializer_list<qint64>{100, 101, 2000, 2001, 4567, file.size()}) {
        RunStore store; // a fresh process
        QVERIFY(store.open(m_path).ok());
        const qint64 offset = store.jobs(m_run).value.first().offsets.metricsOffset;
        MetricsReader reader(MetricsReader::Format::JsonLines, offset);
        delivered = qMax(delivered, cut);
        const QList<MetricEvent> got = reader.feed(QByteArrayView(file).sliced(offset, delivered - offset));
        const StoreResult<bool> appended = store.appendMetrics(m_run, 0, got, offset, reader.offset());
        QVERIFY(appended.ok() && appended.value);
    }
    QCOMPARE(m_store.metricsCount(m_run).value, expected);
    const auto stored = m_store.metrics(m_run);
    for (qsizetype i = 1; i < stored.value.size(); ++i) {
        QVERIFY(stored.value[i].event.time >= stored.value[i - 1].event.time);
    }
}

// Two fronts on one store (two `watch`, or the window and a command) read the same new lines from the same
// offset: the first stores them, the second learns it stored nothing, and every line is there once.
void TestRunStoreMetrics::twoReadersStoreEachLineOnce()
{
    addRunWithJobs(1);
    const QByteArray file = sample("attempt2.jsonl");
    RunStore first;
    RunStore second;
    QVERIFY(first.open(m_path).ok());
    QVERIFY(second.open(m_path).ok());
    MetricsReader readerA(MetricsReader::Format::JsonLines, 0);
    MetricsReader readerB(MetricsReader::Format::JsonLines, 0);
    const QList<MetricEvent> a = readerA.feed(file.left(3000));
    const QList<MetricEvent> b = readerB.feed(file); // the other one read on: the file grew meanwhile
    const StoreResult<bool> storedA = first.appendMetrics(m_run, 0, a, 0, readerA.offset());
    QVERIFY(storedA.ok() && storedA.value);
    const StoreResult<bool> storedB = second.appendMetrics(m_run, 0, b, 0, readerB.offset());
    QVERIFY(storedB.ok());
    QVERIFY(!storedB.value);
    QCOMPARE(m_store.metricsCount(m_run).value, a.size());
    // The second reads on from where the store says, and only the rest is added.
    const qint64 offset = second.jobs(m_run).value.first().offsets.metricsOffset;
    MetricsReader again(MetricsReader::Format::JsonLines, offset);
    const QList<MetricEvent> rest = again.feed(QByteArrayView(file).sliced(offset));
    QVERIFY(second.appendMetrics(m_run, 0, rest, offset, again.offset()).value);
    QCOMPARE(m_store.metricsCount(m_run).value, events("attempt2.jsonl").size());
}

void TestRunStoreMetrics::unknownRunIsAnError()
{
    const StoreStatus status = m_store.appendMetrics(QStringLiteral("nope"), 0, events("attempt1.jsonl"));
    QVERIFY(!status.ok());
    QVERIFY2(status.error.contains(QStringLiteral("nope")), qPrintable(status.error));
    QVERIFY(!m_store.metrics(QStringLiteral("nope")).ok());
    QVERIFY(!m_store.runSeries(QStringLiteral("nope")).ok());
}

TORCHDECK_TEST_MAIN(TestRunStoreMetrics)
#include "tst_runstoremetrics.moc"
