#include "core/scheduler/jobstate.h"
#include "core/scheduler/pbsjob.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

Q_DECLARE_METATYPE(torchdeck::PbsDialect)
Q_DECLARE_METATYPE(torchdeck::PbsEnd)

class TestJobState : public QObject {
    Q_OBJECT
private slots:
    void slurm_data();
    void slurm();
    void pbs_data();
    void pbs();
    void names_data();
    void names();
    void final_data();
    void final();
    void pbsFinished_data();
    void pbsFinished();
};

void TestJobState::slurm_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<JobState>("state");
    const struct {
        const char *code;
        const char *name;
        JobState state;
    } rows[] = {
        {"PD", "PENDING", JobState::Pending},       {"CF", "CONFIGURING", JobState::Pending},
        {"RD", "RESV_DEL_HOLD", JobState::Pending}, {"S", "SUSPENDED", JobState::Pending},
        {"R", "RUNNING", JobState::Running},        {"RS", "RESIZING", JobState::Running},
        {"SI", "SIGNALING", JobState::Running},     {"ST", "STOPPED", JobState::Running},
        {"CG", "COMPLETING", JobState::Completing}, {"SO", "STAGE_OUT", JobState::Completing},
        {"CD", "COMPLETED", JobState::Completed},   {"F", "FAILED", JobState::Failed},
        {"BF", "BOOT_FAIL", JobState::Failed},      {"NF", "NODE_FAIL", JobState::Failed},
        {"OOM", "OUT_OF_MEMORY", JobState::Failed}, {"CA", "CANCELLED", JobState::Cancelled},
        {"RV", "REVOKED", JobState::Cancelled},     {"TO", "TIMEOUT", JobState::Timeout},
        {"DL", "DEADLINE", JobState::Timeout},      {"PR", "PREEMPTED", JobState::Preempted},
        {"RQ", "REQUEUED", JobState::Requeued},     {"RF", "REQUEUE_FED", JobState::Requeued},
        {"RH", "REQUEUE_HOLD", JobState::Requeued}, {"SE", "SPECIAL_EXIT", JobState::Requeued},
    };
    for (const auto &row : rows) {
        QTest::addRow("%s", row.code) << QString::fromLatin1(row.code) << row.state;
        QTest::addRow("%s", row.name) << QString::fromLatin1(row.name) << row.state;
    }
    QTest::addRow("cancelled by uid") << QStringLiteral("CANCELLED by 0") << JobState::Cancelled;
    QTest::addRow("cut by sacct") << QStringLiteral("CANCELLED+") << JobState::Cancelled;
    QTest::addRow("padded") << QStringLiteral("  TIMEOUT ") << JobState::Timeout;
    QTest::addRow("lowercase") << QStringLiteral("running") << JobState::Running;
    QTest::addRow("empty") << QString() << JobState::Unknown;
    QTest::addRow("garbage") << QStringLiteral("BANANA") << JobState::Unknown;
    QTest::addRow("pbs letter is not slurm") << QStringLiteral("Q") << JobState::Unknown;
}

void TestJobState::slurm()
{
    QFETCH(QString, text);
    QFETCH(JobState, state);
    QCOMPARE(slurmJobState(text), state);
}

void TestJobState::pbs_data()
{
    QTest::addColumn<QString>("letter");
    QTest::addColumn<JobState>("state");
    const struct {
        const char *letter;
        JobState state;
    } rows[] = {
        {"Q", JobState::Pending},   {"H", JobState::Pending},    {"W", JobState::Pending},   {"T", JobState::Pending},
        {"M", JobState::Pending},   {"S", JobState::Pending},    {"U", JobState::Pending},   {"R", JobState::Running},
        {"B", JobState::Running},   {"E", JobState::Completing}, {"F", JobState::Completed}, {"X", JobState::Completed},
        {"C", JobState::Completed}, {"Z", JobState::Unknown},    {"", JobState::Unknown},    {"QR", JobState::Unknown},
    };
    for (const auto &row : rows)
        QTest::addRow("'%s'", row.letter) << QString::fromLatin1(row.letter) << row.state;
}

void TestJobState::pbs()
{
    QFETCH(QString, letter);
    QFETCH(JobState, state);
    QCOMPARE(pbsJobState(letter), state);
}

void TestJobState::names_data()
{
    QTest::addColumn<JobState>("state");
    QTest::addColumn<QString>("name");
    QTest::addRow("pending") << JobState::Pending << QStringLiteral("pending");
    QTest::addRow("running") << JobState::Running << QStringLiteral("running");
    QTest::addRow("completing") << JobState::Completing << QStringLiteral("completing");
    QTest::addRow("completed") << JobState::Completed << QStringLiteral("completed");
    QTest::addRow("failed") << JobState::Failed << QStringLiteral("failed");
    QTest::addRow("cancelled") << JobState::Cancelled << QStringLiteral("cancelled");
    QTest::addRow("timeout") << JobState::Timeout << QStringLiteral("timeout");
    QTest::addRow("preempted") << JobState::Preempted << QStringLiteral("preempted");
    QTest::addRow("requeued") << JobState::Requeued << QStringLiteral("requeued");
    QTest::addRow("unknown") << JobState::Unknown << QStringLiteral("unknown");
}

void TestJobState::names()
{
    QFETCH(JobState, state);
    QFETCH(QString, name);
    QCOMPARE(jobStateName(state), name);
    QCOMPARE(jobStateFromName(name), state);
    QCOMPARE(jobStateFromName(name.toUpper()), JobState::Unknown); // the stored form is exact
}

void TestJobState::final_data()
{
    QTest::addColumn<JobState>("state");
    QTest::addColumn<bool>("final");
    QTest::addRow("pending") << JobState::Pending << false;
    QTest::addRow("running") << JobState::Running << false;
    QTest::addRow("completing") << JobState::Completing << false;
    QTest::addRow("requeued") << JobState::Requeued << false;
    QTest::addRow("unknown") << JobState::Unknown << false;
    QTest::addRow("completed") << JobState::Completed << true;
    QTest::addRow("failed") << JobState::Failed << true;
    QTest::addRow("cancelled") << JobState::Cancelled << true;
    QTest::addRow("timeout") << JobState::Timeout << true;
    QTest::addRow("preempted") << JobState::Preempted << true;
}

void TestJobState::final()
{
    QFETCH(JobState, state);
    QFETCH(bool, final);
    QCOMPARE(isFinal(state), final);
}

void TestJobState::pbsFinished_data()
{
    QTest::addColumn<PbsEnd>("end");
    QTest::addColumn<PbsDialect>("dialect");
    QTest::addColumn<JobState>("state");
    const auto exit = [](int status, qint64 used = -1, qint64 limit = -1) {
        PbsEnd end;
        end.hasExitStatus = true;
        end.exitStatus = status;
        end.walltimeUsed = used;
        end.walltimeLimit = limit;
        return end;
    };
    const auto substate = [](int value) {
        PbsEnd end;
        end.substate = value;
        return end;
    };
    QTest::addRow("pro 0") << exit(0) << PbsDialect::PbsPro << JobState::Completed;
    QTest::addRow("pro exit 3") << exit(3) << PbsDialect::PbsPro << JobState::Failed;
    QTest::addRow("pro walltime -29") << exit(-29) << PbsDialect::PbsPro << JobState::Timeout;
    QTest::addRow("pro memory -27") << exit(-27) << PbsDialect::PbsPro << JobState::Failed;
    QTest::addRow("pro exec failed -1") << exit(-1) << PbsDialect::PbsPro << JobState::Failed;
    QTest::addRow("pro -11 is rerun, not walltime") << exit(-11) << PbsDialect::PbsPro << JobState::Failed;
    QTest::addRow("pro SIGTERM, walltime used up") << exit(271, 610, 600) << PbsDialect::PbsPro << JobState::Timeout;
    QTest::addRow("pro SIGTERM early: qdel") << exit(271, 10, 600) << PbsDialect::PbsPro << JobState::Cancelled;
    QTest::addRow("pro SIGKILL: qdel") << exit(265) << PbsDialect::PbsPro << JobState::Cancelled;
    QTest::addRow("pro SIGSEGV") << exit(256 + 11) << PbsDialect::PbsPro << JobState::Failed;
    QTest::addRow("pro shell 143 after walltime") << exit(143, 600, 600) << PbsDialect::PbsPro << JobState::Timeout;
    QTest::addRow("pro no status") << PbsEnd() << PbsDialect::PbsPro << JobState::Completed;
    QTest::addRow("pro terminated") << substate(91) << PbsDialect::PbsPro << JobState::Cancelled;
    QTest::addRow("pro failed substate") << substate(93) << PbsDialect::PbsPro << JobState::Failed;
    QTest::addRow("torque 0") << exit(0) << PbsDialect::Torque << JobState::Completed;
    QTest::addRow("torque walltime -11") << exit(-11) << PbsDialect::Torque << JobState::Timeout;
    QTest::addRow("torque -29 is not walltime") << exit(-29) << PbsDialect::Torque << JobState::Failed;
    QTest::addRow("torque qdel 271") << exit(271, 10, 600) << PbsDialect::Torque << JobState::Cancelled;
    QTest::addRow("torque exec -1") << exit(-1) << PbsDialect::Torque << JobState::Failed;
    QTest::addRow("torque wrapper: no status") << PbsEnd() << PbsDialect::Torque << JobState::Completed;
}

void TestJobState::pbsFinished()
{
    QFETCH(PbsEnd, end);
    QFETCH(PbsDialect, dialect);
    QFETCH(JobState, state);
    QCOMPARE(pbsFinishedState(end, dialect), state);
}

TORCHDECK_TEST_MAIN(TestJobState)
#include "tst_jobstate.moc"
