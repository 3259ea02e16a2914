#include "core/store/runstore.h"
#include "testmain.h"

#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUuid>
#include <atomic>

using namespace torchdeck;

namespace {
RunRecord sampleRun(const QString &name, const QDateTime &created = {})
{
    RunRecord r;
    r.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    r.name = name;
    r.cluster = QStringLiteral("torchdeck-sandbox");
    r.created = created;
    r.state = QStringLiteral("running");
    r.specJson = QStringLiteral("{\"nodes\":1,\"name\":\"it's \\\"quoted\\\" — λ\"}");
    r.script = QStringLiteral("#!/bin/bash\n#SBATCH --nodes=1\nsrun torchdeck-train\n");
    r.epochsDone = 2;
    r.epochsTotal = 10;
    r.lastLoss = 0.0421;
    r.etaSeconds = 123.5;
    return r;
}

// The job `jobId` of the first attempt of run `runId`.
JobRecord firstJob(const QString &runId, const QString &jobId)
{
    JobRecord j;
    j.runId = runId;
    j.jobId = jobId;
    return j;
}
} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;
    RunStore m_store;

private slots:
    void init();
    void cleanup();
    void runRoundTrip();
    void unknownValuesStayUnknown();
    void runsNewestFirstAndByCluster();
    void updateAndProgress();
    void jobsAcrossAttempts();
    void offsetsSurviveReopen();
    void checkpointsWithBest();
    void removeRunCascades();
    void duplicateIdIsAnError();
    void oneConnectionPerThread();
    void sweepsKeepTheirRuns();
};

void TestRunStore::init()
{
    m_path = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".sqlite"));
    const StoreStatus status = m_store.open(m_path);
    QVERIFY2(status.ok(), qPrintable(status.error));
}

void TestRunStore::cleanup()
{
    m_store.close();
}

void TestRunStore::runRoundTrip()
{
    const QDateTime created = QDateTime::fromMSecsSinceEpoch(1717171717250, Qt::UTC);
    const RunRecord run = sampleRun(QStringLiteral("ae on fashion-mnist"), created);
    QVERIFY(m_store.addRun(run).ok());
    m_store.close();
    QVERIFY(m_store.open(m_path).ok()); // from disk
    const auto got = m_store.run(run.id);
    QVERIFY2(got.ok(), qPrintable(got.error));
    QVERIFY(got.value.has_value());
    const RunRecord &r = *got.value;
    QCOMPARE(r.id, run.id);
    QCOMPARE(r.name, run.name);
    QCOMPARE(r.cluster, run.cluster);
    QCOMPARE(r.created, created);
    QVERIFY(r.updated.isValid());
    QCOMPARE(r.state, run.state);
    QCOMPARE(r.specJson, run.specJson);
    QCOMPARE(r.script, run.script);
    QCOMPARE(r.epochsDone, 2);
    QCOMPARE(r.epochsTotal, 10);
    QCOMPARE(r.lastLoss, 0.0421);
    QCOMPARE(r.etaSeconds, 123.5);
    QVERIFY(!m_store.run(QStringLiteral("no-such-run")).value.has_value());
}

void TestRunStore::unknownValuesStayUnknown()
{
    RunRecord run;
    run.id = QStringLiteral("bare");
    QVERIFY(m_store.addRun(run).ok());
    const RunRecord r = *m_store.run(run.id).value;
    QVERIFY(r.name.isEmpty());
    QCOMPARE(r.epochsTotal, -1);
    QVERIFY(std::isnan(r.lastLoss));
    QVERIFY(std::isnan(r.etaSeconds));
    QVERIFY(r.created.isValid()); // set by the store
}

void TestRunStore::runsNewestFirstAndByCluster()
{
    const QDateTime t0 = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
    for (int i = 0; i < 5; ++i) {
        RunRecord r = sampleRun(QStringLiteral("run %1").arg(i), t0.addSecs(static_cast<qint64>(i) * 60));
        if (i == 3)
            r.cluster = QStringLiteral("other");
        QVERIFY(m_store.addRun(r).ok());
    }
    const auto all = m_store.runs();
    QVERIFY(all.ok());
    QCOMPARE(all.value.size(), 5);
    QCOMPARE(all.value.first().name, QStringLiteral("run 4"));
    QCOMPARE(all.value.last().name, QStringLiteral("run 0"));
    const auto other = m_store.runs(QStringLiteral("other"));
    QCOMPARE(other.value.size(), 1);
    QCOMPARE(other.value.first().name, QStringLiteral("run 3"));
}

void TestRunStore::updateAndProgress()
{
    RunRecord run = sampleRun(QStringLiteral("r"));
    QVERIFY(m_store.addRun(run).ok());
    run.state = QStringLiteral("completed");
    run.message = QStringLiteral("done");
    QVERIFY(m_store.updateRun(run).ok());
    QCOMPARE(m_store.run(run.id).value->message, QStringLiteral("done"));
    QVERIFY(std::isnan(m_store.run(run.id).value->etaSeconds)); // an ended run waits for nothing
    QVERIFY(m_store.updateProgress(run.id, QStringLiteral("running"), 7, 10, 0.01, qQNaN()).ok());
    const RunRecord r = *m_store.run(run.id).value;
    QCOMPARE(r.state, QStringLiteral("running"));
    QCOMPARE(r.epochsDone, 7);
    QCOMPARE(r.lastLoss, 0.01);
    QVERIFY(std::isnan(r.etaSeconds));
    RunRecord missing = sampleRun(QStringLiteral("missing"));
    QVERIFY(!m_store.updateRun(missing).ok());
    QVERIFY(!m_store.updateProgress(missing.id, {}, 0, 0, 0, 0).ok());
}

void TestRunStore::jobsAcrossAttempts()
{
    const RunRecord run = sampleRun(QStringLiteral("r"));
    QVERIFY(m_store.addRun(run).ok());
    for (int attempt = 0; attempt < 3; ++attempt) {
        JobRecord j;
        j.runId = run.id;
        j.attempt = attempt;
        j.jobId = QString::number(1000 + attempt);
        j.submitted = QDateTime::fromSecsSinceEpoch(1700000000 + attempt, Qt::UTC);
        j.state = attempt < 2 ? QStringLiteral("timeout") : QStringLiteral("running");
        j.resumeFrom = attempt == 0 ? QString() : QStringLiteral("ckpt-%1.pt").arg(attempt);
        j.stdoutPath = QStringLiteral("/scratch/run/slurm-%1.out").arg(j.jobId);
        j.metricsPath = QStringLiteral("/scratch/run/metrics-%1.jsonl").arg(j.jobId);
        QVERIFY(m_store.saveJob(j).ok());
    }
    QVERIFY(m_store.updateJobState(run.id, 1, QStringLiteral("preempted"), 143).ok());
    const auto jobs = m_store.jobs(run.id);
    QVERIFY(jobs.ok());
    QCOMPARE(jobs.value.size(), 3);
    QCOMPARE(jobs.value[1].state, QStringLiteral("preempted"));
    QCOMPARE(jobs.value[1].exitCode, 143);
    QCOMPARE(jobs.value[2].exitCode, -1);
    QCOMPARE(jobs.value[2].resumeFrom, QStringLiteral("ckpt-2.pt"));
    QCOMPARE(jobs.value[0].submitted, QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC));

    const auto byId = m_store.jobByJobId(run.cluster, QStringLiteral("1002"));
    QVERIFY(byId.ok() && byId.value.has_value());
    QCOMPARE(byId.value->runId, run.id);
    QCOMPARE(byId.value->attempt, 2);
    QVERIFY(!m_store.jobByJobId(QStringLiteral("other cluster"), QStringLiteral("1002")).value.has_value());

    const auto watched = m_store.jobsInStates({QStringLiteral("running"), QStringLiteral("pending")});
    QCOMPARE(watched.value.size(), 1);
    QCOMPARE(watched.value.first().jobId, QStringLiteral("1002"));
    QVERIFY(!m_store.updateJobState(run.id, 9, QStringLiteral("x")).ok());

    // What the scheduler says beyond the state, kept as it was said.
    JobScheduling waiting{
        QStringLiteral("PENDING"), QStringLiteral("BeginTime"), QDateTime::fromSecsSinceEpoch(1700003600, Qt::UTC), {}};
    QVERIFY(m_store.updateJobScheduling(run.id, 2, waiting).ok());
    QCOMPARE(m_store.jobs(run.id).value.at(2).scheduling, waiting);
    QCOMPARE(m_store.jobs(run.id).value.at(0).scheduling, JobScheduling{});
    QVERIFY(!m_store.updateJobScheduling(run.id, 9, waiting).ok());
}

void TestRunStore::offsetsSurviveReopen()
{
    const RunRecord run = sampleRun(QStringLiteral("r"));
    QVERIFY(m_store.addRun(run).ok());
    QVERIFY(m_store.saveJob(firstJob(run.id, QStringLiteral("77"))).ok());
    QVERIFY(m_store.saveOffsets(run.id, 0, {1234, 56, 7890123456LL}).ok());
    m_store.close();
    QVERIFY(m_store.open(m_path).ok());
    const JobRecord got = m_store.jobs(run.id).value.first();
    QCOMPARE(got.offsets.stdoutOffset, 1234);
    QCOMPARE(got.offsets.stderrOffset, 56);
    QCOMPARE(got.offsets.metricsOffset, 7890123456LL);
    QVERIFY(!m_store.saveOffsets(run.id, 5, {}).ok());
}

void TestRunStore::checkpointsWithBest()
{
    const RunRecord run = sampleRun(QStringLiteral("r"));
    QVERIFY(m_store.addRun(run).ok());
    for (int step : {40, 20, 60}) {
        CheckpointRecord c;
        c.runId = run.id;
        c.path = QStringLiteral("/ckpt/step-%1.pt").arg(step);
        c.step = step;
        c.epoch = step / 20;
        c.bytes = 2421771;
        c.time = 1717171717.5 + step;
        c.reason = QStringLiteral("epoch");
        c.valid = step != 60;
        QVERIFY(m_store.saveCheckpoint(c).ok());
    }
    QVERIFY(m_store.setBestCheckpoint(run.id, QStringLiteral("/ckpt/step-40.pt")).ok());
    QVERIFY(m_store.setBestCheckpoint(run.id, QStringLiteral("/ckpt/step-20.pt")).ok());
    auto list = m_store.checkpoints(run.id);
    QVERIFY(list.ok());
    QCOMPARE(list.value.size(), 3);
    QCOMPARE(list.value[0].step, 20);
    QVERIFY(list.value[0].best);
    QVERIFY(!list.value[1].best);
    QVERIFY(!list.value[2].valid);
    QCOMPARE(list.value[2].time, 1717171777.5);
    QVERIFY(m_store.removeCheckpoint(run.id, QStringLiteral("/ckpt/step-60.pt")).ok());
    QCOMPARE(m_store.checkpoints(run.id).value.size(), 2);
}

void TestRunStore::removeRunCascades()
{
    const RunRecord run = sampleRun(QStringLiteral("r"));
    QVERIFY(m_store.addRun(run).ok());
    QVERIFY(m_store.saveJob(firstJob(run.id, QStringLiteral("1"))).ok());
    CheckpointRecord c;
    c.runId = run.id;
    c.path = QStringLiteral("a.pt");
    QVERIFY(m_store.saveCheckpoint(c).ok());
    MetricEvent e;
    e.step = 1;
    e.loss = 1;
    QVERIFY(m_store.appendMetrics(run.id, 0, {e, e}).ok());
    QVERIFY(m_store.removeRun(run.id).ok());
    QVERIFY(!m_store.run(run.id).value.has_value());
    QVERIFY(m_store.jobs(run.id).value.isEmpty());
    QVERIFY(m_store.checkpoints(run.id).value.isEmpty());
    // The metrics rows went with the run: a new run with the same id starts empty.
    QVERIFY(m_store.addRun(run).ok());
    QCOMPARE(m_store.metricsCount(run.id).value, 0);
}

void TestRunStore::duplicateIdIsAnError()
{
    const RunRecord run = sampleRun(QStringLiteral("r"));
    QVERIFY(m_store.addRun(run).ok());
    const StoreStatus again = m_store.addRun(run);
    QVERIFY(!again.ok());
    QVERIFY2(again.error.contains(run.id), qPrintable(again.error));
    RunRecord noId;
    QVERIFY(!m_store.addRun(noId).ok());
}

// Each thread opens its own RunStore on the same file; WAL lets readers run while a writer commits.
void TestRunStore::oneConnectionPerThread()
{
    std::atomic<int> failures{0};
    const QString path = m_path;
    QList<QThread *> threads;
    for (int t = 0; t < 4; ++t) {
        threads.append(QThread::create([path, t, &failures] {
            RunStore store;
            if (!store.open(path).ok()) {
                ++failures;
                return;
            }
            for (int i = 0; i < 25; ++i) {
                RunRecord r = sampleRun(QStringLiteral("thread %1 run %2").arg(t).arg(i));
                if (!store.addRun(r).ok() || !store.runs().ok())
                    ++failures;
            }
        }));
        threads.last()->start();
    }
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(60000));
        delete thread;
    }
    QCOMPARE(failures.load(), 0);
    QCOMPARE(m_store.runs().value.size(), 100);
}

void TestRunStore::sweepsKeepTheirRuns()
{
    const QDateTime t0 = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
    const SweepRecord older{QStringLiteral("s1"), QStringLiteral("torchdeck-sandbox"), QStringLiteral("lr"), t0,
                            QStringLiteral(R"([{"name":"lr","values":["0.1","0.01"]}])")};
    const SweepRecord newer{QStringLiteral("s2"), QStringLiteral("torchdeck-sandbox"), QStringLiteral("scaling"),
                            t0.addSecs(60), QStringLiteral(R"([{"name":"nodes","values":["1","2"]}])")};
    QVERIFY(m_store.addSweep(older).ok());
    QVERIFY(m_store.addSweep(newer).ok());
    QVERIFY(!m_store.addSweep(older).ok()); // an id is one sweep's
    QStringList runs;
    for (int i = 0; i < 3; ++i) {
        const RunRecord run = sampleRun(QStringLiteral("point %1").arg(i), t0.addSecs(i));
        QVERIFY(m_store.addRun(run).ok());
        runs.append(run.id);
    }
    QVERIFY(m_store.joinSweep(runs.at(0), newer.id, QStringLiteral(R"({"nodes":"1"})")).ok());
    QVERIFY(m_store.joinSweep(runs.at(2), newer.id, QStringLiteral(R"({"nodes":"2"})")).ok());
    QVERIFY(!m_store.joinSweep(QStringLiteral("no-such-run"), newer.id, {}).ok());
    const auto sweeps = m_store.sweeps();
    QVERIFY2(sweeps.ok(), qPrintable(sweeps.error));
    QCOMPARE(sweeps.value.size(), 2);
    QCOMPARE(sweeps.value.first().id, newer.id);
    QCOMPARE(sweeps.value.first().created, newer.created);
    QCOMPARE(sweeps.value.first().axesJson, newer.axesJson);
    const auto members = m_store.sweepMembers(newer.id);
    QVERIFY2(members.ok(), qPrintable(members.error));
    QCOMPARE(members.value.size(), 2);
    QCOMPARE(members.value.at(0).runId, runs.at(0));
    QCOMPARE(members.value.at(1).runId, runs.at(2));
    QCOMPARE(members.value.at(1).pointJson, QStringLiteral(R"({"nodes":"2"})"));
    QVERIFY(m_store.sweepMembers(older.id).value.isEmpty());
    // Removed with its runs (and their jobs); the run outside it and the other sweep stay.
    JobRecord job;
    job.runId = runs.at(0);
    job.jobId = QStringLiteral("123_0");
    QVERIFY(m_store.saveJob(job).ok());
    const StoreStatus removed = m_store.removeSweep(newer.id);
    QVERIFY2(removed.ok(), qPrintable(removed.error));
    QCOMPARE(m_store.sweeps().value.size(), 1);
    QVERIFY(!m_store.run(runs.at(0)).value.has_value());
    QVERIFY(!m_store.run(runs.at(2)).value.has_value());
    QVERIFY(m_store.run(runs.at(1)).value.has_value());
    QVERIFY(m_store.jobs(runs.at(0)).value.isEmpty());
    // A point sent after its sweep was deleted stays a run of its own, in no sweep that is gone.
    const StoreStatus late = m_store.joinSweep(runs.at(1), newer.id, {});
    QVERIFY(!late.ok());
    QVERIFY2(late.error.contains(QStringLiteral("deleted meanwhile")), qPrintable(late.error));
    QVERIFY(m_store.sweepMembers(newer.id).value.isEmpty());
}

TORCHDECK_TEST_MAIN(TestRunStore)
#include "tst_runstore.moc"
