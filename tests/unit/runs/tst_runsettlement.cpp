// How a tracker pass settles a run from its jobs and its series (core/runs/runsettlement.h).
#include "core/runs/forgottenjob.h"
#include "core/runs/runsettlement.h"
#include "core/scheduler/jobstate.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QTest>
#include <cmath>

using namespace torchdeck;

Q_DECLARE_METATYPE(torchdeck::JobState)

namespace {

JobRecord job(int attempt, JobState state)
{
    JobRecord record;
    record.attempt = attempt;
    record.jobId = QString::number(100 + attempt);
    record.state = jobStateName(state);
    return record;
}

RunInfo stopped(int exitCode, const QString &reason, const QString &message = {})
{
    RunInfo info;
    info.stopped = true;
    info.exitCode = exitCode;
    info.stopReason = reason;
    info.stopMessage = message;
    return info;
}

} // namespace

class TestRunSettlement : public QObject {
    Q_OBJECT
private slots:
    void stateOfTheJobThatSpeaks_data()
    {
        QTest::addColumn<QList<JobRecord>>("jobs");
        QTest::addColumn<RunInfo>("info");
        QTest::addColumn<QString>("state");
        QTest::addColumn<bool>("ended");
        QTest::addRow("running") << QList<JobRecord>{job(0, JobState::Running)} << RunInfo{} << "running" << false;
        QTest::addRow("completed, the trainer agrees") << QList<JobRecord>{job(0, JobState::Completed)}
                                                       << stopped(0, QStringLiteral("done")) << "completed" << true;
        QTest::addRow("a PBS wrapper's completed, the trainer failed")
            << QList<JobRecord>{job(0, JobState::Completed)} << stopped(1, QStringLiteral("error")) << "failed" << true;
        QTest::addRow("wall time, the trainer checkpointed")
            << QList<JobRecord>{job(0, JobState::Timeout)} << stopped(75, QStringLiteral("signal")) << "timeout"
            << true;
        QTest::addRow("a chain: the attempt that waits behind a failed one")
            << QList<JobRecord>{job(0, JobState::Failed), job(1, JobState::Pending)} << RunInfo{} << "pending" << false;
        QTest::addRow("a chain: the running attempt, not the newest")
            << QList<JobRecord>{job(0, JobState::Running), job(1, JobState::Pending)} << RunInfo{} << "running"
            << false;
        QTest::addRow("a chain that completed: its never-run leftover passed over")
            << QList<JobRecord>{job(0, JobState::Completed), job(1, JobState::Cancelled)}
            << stopped(0, QStringLiteral("done")) << "completed" << true;
    }
    void stateOfTheJobThatSpeaks()
    {
        QFETCH(QList<JobRecord>, jobs);
        QFETCH(RunInfo, info);
        QFETCH(QString, state);
        QFETCH(bool, ended);
        const RunSettlement settled = settleRun(RunRecord{}, jobs, RunProgress{}, info);
        QCOMPARE(settled.state, state);
        QCOMPARE(settled.ended, ended);
    }

    void progressAndTheSubmittedEpochs()
    {
        RunProgress progress;
        progress.epochsDone = 3;
        progress.epochsTotal = 5;
        progress.lastLoss = 0.25;
        progress.secondsPerEpoch = 20;
        progress.etaSeconds = 40;
        RunRecord run;
        const RunSettlement fromSeries = settleRun(run, {job(0, JobState::Running)}, progress, {});
        QCOMPARE(fromSeries.epochsDone, 3);
        QCOMPARE(fromSeries.epochsTotal, 5);
        QCOMPARE(fromSeries.lastLoss, 0.25);
        QCOMPARE(fromSeries.etaSeconds, 40.0);
        // A user's script: the series' total as it says it now, not one the record kept from before.
        run.epochsTotal = 3;
        QCOMPARE(settleRun(run, {job(0, JobState::Running)}, progress, {}).epochsTotal, 5);
        QCOMPARE(settleRun(run, {job(0, JobState::Running)}, progress, {}).etaSeconds, 40.0);
        // Resumed with --epochs 10: the series says 5 until the new start event; the spec's count wins.
        JobSpec spec;
        spec.name = QStringLiteral("resumed");
        spec.trainerArgs = {QStringLiteral("--model"), QStringLiteral("ae"), QStringLiteral("--epochs=10")};
        run.specJson = QString::fromUtf8(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
        QCOMPARE(specifiedEpochs(run), 10);
        const RunSettlement resumed = settleRun(run, {job(0, JobState::Running)}, progress, {});
        QCOMPARE(resumed.epochsTotal, 10);
        QCOMPARE(resumed.etaSeconds, 140.0); // 7 epochs left at 20 s, not the old run's 2
        // A user's command whose spec carries a stray --epochs: its series says its total.
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("python train.py");
        run.specJson = QString::fromUtf8(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
        QCOMPARE(specifiedEpochs(run), -1);
        QCOMPARE(settleRun(run, {job(0, JobState::Running)}, progress, {}).epochsTotal, 5);
        QVERIFY(std::isnan(settleRun(run, {job(0, JobState::Completed)}, progress, {}).etaSeconds));
    }

    void message_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<RunInfo>("info");
        QTest::addColumn<QString>("after");
        QTest::addRow("nothing to say") << "submitted" << RunInfo{} << "submitted";
        QTest::addRow("the trainer's error")
            << "restarted" << stopped(1, QStringLiteral("error"), QStringLiteral("CUDA out of memory"))
            << "CUDA out of memory";
        QTest::addRow("a signal is no error")
            << "restarted" << stopped(75, QStringLiteral("signal"), QStringLiteral("SIGUSR1")) << "restarted";
        RunInfo resumed;
        resumed.tornResumedFrom = QStringLiteral("/w/runs/r/ckpt/step-200.pt");
        resumed.tornSkipped = 2;
        const QString warning =
            QStringLiteral("warning: resumed from step-200.pt; 2 newer checkpoint(s) were torn or corrupt");
        QTest::addRow("resumed from an older checkpoint") << "" << resumed << warning;
        QTest::addRow("the warning after a message")
            << "restarted" << resumed << QString(QStringLiteral("restarted; ") + warning);
        QTest::addRow("the warning once") << QString(QStringLiteral("restarted; ") + warning) << resumed
                                          << QString(QStringLiteral("restarted; ") + warning);
    }
    void message()
    {
        QFETCH(QString, before);
        QFETCH(RunInfo, info);
        QFETCH(QString, after);
        QCOMPARE(settledMessage(before, info), after);
    }

    // A job the scheduler forgot (not in its queue, not in its history) is settled by its own record.
    void aForgottenJobEndsAsItsRecordSays_data()
    {
        QTest::addColumn<QByteArray>("trace");
        QTest::addColumn<bool>("settled");
        QTest::addColumn<JobState>("state");
        QTest::addColumn<int>("exitCode");
        QTest::addRow("completed") << QByteArray("start 12\nend 12 0\n") << true << JobState::Completed << 0;
        QTest::addRow("failed") << QByteArray("start 12\nend 12 2\n") << true << JobState::Failed << 2;
        QTest::addRow("asked to be requeued") << QByteArray("start 12\nend 12 75\n") << true << JobState::Failed << 75;
        QTest::addRow("killed: no end") << QByteArray("start 12\n") << true << JobState::Failed << -1;
        QTest::addRow("never started") << QByteArray() << false << JobState::Unknown << -1;
        QTest::addRow("another job's record") << QByteArray("start 11\nend 11 0\n") << false << JobState::Unknown << -1;
    }
    void aForgottenJobEndsAsItsRecordSays()
    {
        QFETCH(QByteArray, trace);
        QFETCH(bool, settled);
        QFETCH(JobState, state);
        QFETCH(int, exitCode);
        const std::optional<ForgottenJobEnd> end = forgottenJobEnd(parseJobTrace(trace), QStringLiteral("12"));
        QCOMPARE(end.has_value(), settled);
        if (!end)
            return;
        QCOMPARE(end->state, state);
        QCOMPARE(end->exitCode, exitCode);
        QVERIFY2(end->message.contains(QStringLiteral("no longer knows job 12")), qPrintable(end->message));
    }
};

TORCHDECK_TEST_MAIN(TestRunSettlement)
#include "tst_runsettlement.moc"
