// What the agent tells its user of a run (core/runs/runnotice.h): once, at the pass where it ends.
#include "core/runs/runnotice.h"
#include "core/scheduler/jobstate.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

namespace {

RunRecord runIn(JobState state, const QString &message = {})
{
    RunRecord run;
    run.id = QStringLiteral("0123456789abcdef");
    run.name = QStringLiteral("fashion");
    run.cluster = QStringLiteral("narvi");
    run.state = jobStateName(state);
    run.epochsDone = 3;
    run.epochsTotal = 4;
    run.message = message;
    return run;
}

QList<JobRecord> jobsEndingIn(JobState state, const QString &schedulerState, int exitCode = -1)
{
    JobRecord first;
    first.jobId = QStringLiteral("16");
    first.state = jobStateName(JobState::Timeout);
    JobRecord last;
    last.attempt = 1;
    last.jobId = QStringLiteral("17");
    last.state = jobStateName(state);
    last.exitCode = exitCode;
    last.scheduling.state = schedulerState;
    return {first, last};
}

} // namespace

class TestRunNotice : public QObject {
    Q_OBJECT
private slots:
    void atTheEndOnly_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<RunRecord>("run");
        QTest::addColumn<QList<JobRecord>>("jobs");
        QTest::addColumn<QString>("event");
        QTest::addColumn<QString>("title");
        QTest::addColumn<QString>("body");
        QTest::addRow("completed") << QStringLiteral("running") << runIn(JobState::Completed)
                                   << jobsEndingIn(JobState::Completed, QStringLiteral("COMPLETED"), 0)
                                   << QStringLiteral("completed") << QStringLiteral("run fashion completed")
                                   << QStringLiteral("job 17 on narvi: 3 of 4 epochs");
        QTest::addRow("out of memory, with the run's message")
            << QStringLiteral("running") << runIn(JobState::Failed, QStringLiteral("CUDA error"))
            << jobsEndingIn(JobState::Failed, QStringLiteral("OUT_OF_MEMORY"), 0) << QStringLiteral("failed")
            << QStringLiteral("run fashion failed") << QStringLiteral("job 17 on narvi: out of memory; CUDA error");
        QTest::addRow("wall time, not restarted")
            << QStringLiteral("requeued") << runIn(JobState::Timeout)
            << jobsEndingIn(JobState::Timeout, QStringLiteral("TIMEOUT")) << QStringLiteral("failed")
            << QStringLiteral("run fashion failed") << QStringLiteral("job 17 on narvi: wall time");
        QTest::addRow("cancelled by its user") << QStringLiteral("running") << runIn(JobState::Cancelled)
                                               << jobsEndingIn(JobState::Cancelled, QStringLiteral("CANCELLED by 0"))
                                               << QString() << QString() << QString();
        QTest::addRow("ended before") << QStringLiteral("completed") << runIn(JobState::Completed)
                                      << jobsEndingIn(JobState::Completed, QStringLiteral("COMPLETED"), 0) << QString()
                                      << QString() << QString();
        QTest::addRow("to be restarted") << QStringLiteral("running") << runIn(JobState::Requeued)
                                         << jobsEndingIn(JobState::Failed, QStringLiteral("FAILED"), 75) << QString()
                                         << QString() << QString();
    }
    void atTheEndOnly()
    {
        QFETCH(QString, before);
        QFETCH(RunRecord, run);
        QFETCH(QList<JobRecord>, jobs);
        QFETCH(QString, event);
        QFETCH(QString, title);
        QFETCH(QString, body);
        const std::optional<RunNotice> notice = endNotice(before, run, jobs);
        QCOMPARE(notice.has_value(), !event.isEmpty());
        if (!notice)
            return;
        QCOMPARE(notice->event(), event);
        QCOMPARE(notice->title(), title);
        QCOMPARE(notice->body(), body);
        const QJsonObject json = notice->toJson();
        QCOMPARE(json.value(u"event").toString(), event);
        QCOMPARE(json.value(u"run").toString(), run.id);
        QCOMPARE(json.value(u"job").toString(), QStringLiteral("17"));
    }

    void restarts()
    {
        const RunRecord run = runIn(JobState::Requeued);
        const RunNotice restarted = restartNotice(run, QStringLiteral("18"), QStringLiteral("job 17 ended by timeout"));
        QCOMPARE(restarted.event(), QStringLiteral("restarted"));
        QCOMPARE(restarted.body(), QStringLiteral("job 18 on narvi: job 17 ended by timeout"));
        const RunNotice refused =
            restartFailedNotice(run, QStringLiteral("sbatch: error: QOSMaxSubmitJobPerUserLimit"));
        QCOMPARE(refused.event(), QStringLiteral("restart_failed"));
        QCOMPARE(refused.title(), QStringLiteral("run fashion could not be restarted"));
        QCOMPARE(refused.body(), QStringLiteral("on narvi: sbatch: error: QOSMaxSubmitJobPerUserLimit"));
    }

    void moves()
    {
        RunRecord run = runIn(JobState::Pending);
        run.cluster = QStringLiteral("puhti"); // the run went on there
        JobRecord job;
        job.jobId = QStringLiteral("18");
        job.cluster = QStringLiteral("narvi");
        const RunNotice moved = moveNotice(run, job, true, QStringLiteral("moved to puhti as job 4"));
        QCOMPARE(moved.event(), QStringLiteral("moved"));
        QCOMPARE(moved.title(), QStringLiteral("run fashion moved"));
        QCOMPARE(moved.body(), QStringLiteral("job 18 on narvi: moved to puhti as job 4"));
        const RunNotice stayed = moveNotice(run, job, false, QStringLiteral("job 18 could not be held"));
        QCOMPARE(stayed.event(), QStringLiteral("move_failed"));
        QCOMPARE(stayed.title(), QStringLiteral("run fashion could not be moved"));
    }

    void stallsAndWaits()
    {
        const RunRecord run = runIn(JobState::Running);
        const RunNotice stalled = stallNotice(run, QStringLiteral("17"), QStringLiteral("stalled: no new output"));
        QCOMPARE(stalled.event(), QStringLiteral("stalled"));
        QCOMPARE(stalled.title(), QStringLiteral("run fashion stalled"));
        QCOMPARE(stalled.body(), QStringLiteral("job 17 on narvi: stalled: no new output"));
        JobRecord job;
        job.jobId = QStringLiteral("18");
        job.state = jobStateName(JobState::Pending);
        job.scheduling.reason = QStringLiteral("Resources");
        const QDateTime now = QDateTime::currentDateTimeUtc();
        job.submitted = now.addSecs(-3725);
        const RunNotice waiting = waitNotice(run, job, now);
        QCOMPARE(waiting.event(), QStringLiteral("waiting"));
        QCOMPARE(waiting.title(), QStringLiteral("run fashion still waits"));
        QVERIFY2(waiting.body().startsWith(QStringLiteral("job 18 on narvi: waiting for 1h02m: ")) &&
                     waiting.body().endsWith(QStringLiteral("(Resources)")),
                 qPrintable(waiting.body()));
    }
};

TORCHDECK_TEST_MAIN(TestRunNotice)
#include "tst_runnotice.moc"
