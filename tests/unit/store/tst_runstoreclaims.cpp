// Claims on attempts (RunStore::claimAttempt): any number of fronts on one store submit an attempt once.
#include "core/store/claimowner.h"
#include "core/store/runstore.h"
#include "testmain.h"

#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
constexpr qint64 leaseMs = 60000;
const QString kOwnerA = QStringLiteral("laptop:100:aaaa");
const QString kOwnerB = QStringLiteral("laptop:200:bbbb");

RunRecord newRun(const QString &id)
{
    RunRecord run;
    run.id = id;
    run.name = QStringLiteral("claimed");
    run.cluster = QStringLiteral("cluster");
    run.state = QStringLiteral("pending");
    return run;
}

JobRecord attempt(const QString &runId, int number)
{
    JobRecord job;
    job.runId = runId;
    job.attempt = number;
    job.state = QStringLiteral("pending");
    job.stdoutPath = QStringLiteral("/w/runs/%1/attempt-%2.out").arg(runId).arg(number);
    return job;
}
} // namespace

class TestRunStoreClaims : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("runs-%1.sqlite").arg(++m_count));
        QVERIFY(m_store.open(m_path).ok());
    }
    void cleanup() { m_store.close(); }

    void aClaimMakesTheRunAndAJobWithoutAnId()
    {
        const auto claimed = m_store.claimAttempt(newRun(QStringLiteral("r1")), attempt(QStringLiteral("r1"), 0),
                                                  kOwnerA, leaseMs, QStringLiteral("{}"));
        QVERIFY2(claimed.ok(), qPrintable(claimed.error));
        QCOMPARE(claimed.value.outcome, AttemptClaim::Outcome::Claimed);
        QCOMPARE(m_store.run(QStringLiteral("r1")).value->state, QStringLiteral("submitting"));
        const QList<JobRecord> jobs = m_store.jobs(QStringLiteral("r1")).value;
        QCOMPARE(jobs.size(), 1);
        QVERIFY(jobs.first().jobId.isEmpty());
        QCOMPARE(jobs.first().state, QStringLiteral("submitting"));
        QVERIFY(submittedJobIds(jobs).isEmpty());
        // The same owner may claim again (a retry of its own); another is held off while the lease runs.
        QCOMPARE(m_store.claimAttempt(newRun(QStringLiteral("r1")), attempt(QStringLiteral("r1"), 0), kOwnerA, leaseMs)
                     .value.outcome,
                 AttemptClaim::Outcome::Claimed);
        const auto other =
            m_store.claimAttempt(newRun(QStringLiteral("r1")), attempt(QStringLiteral("r1"), 0), kOwnerB, leaseMs);
        QCOMPARE(other.value.outcome, AttemptClaim::Outcome::HeldByAnother);
        QCOMPARE(other.value.owner, kOwnerA);
    }

    void theRecordedJobEndsTheClaim()
    {
        const RunRecord run = newRun(QStringLiteral("r2"));
        JobRecord job = attempt(run.id, 0);
        QVERIFY(m_store.claimAttempt(run, job, kOwnerA, leaseMs).ok());
        job.jobId = QStringLiteral("4242");
        QVERIFY(m_store.recordClaimedJob(run, job, kOwnerA).ok());
        QCOMPARE(m_store.jobs(run.id).value.first().jobId, QStringLiteral("4242"));
        QCOMPARE(m_store.run(run.id).value->state, QStringLiteral("pending"));
        const auto again = m_store.claimAttempt(run, attempt(run.id, 0), kOwnerB, leaseMs);
        QCOMPARE(again.value.outcome, AttemptClaim::Outcome::AlreadySubmitted);
        QCOMPARE(again.value.jobId, QStringLiteral("4242"));
        // The next attempt of the run is claimed on its own; the run row stays as it is meanwhile.
        const auto next = m_store.claimAttempt(run, attempt(run.id, 1), kOwnerB, leaseMs);
        QCOMPARE(next.value.outcome, AttemptClaim::Outcome::Claimed);
        QCOMPARE(m_store.run(run.id).value->state, QStringLiteral("pending"));
    }

    void aReleasedClaimLeavesNothingOfANewRun()
    {
        const RunRecord run = newRun(QStringLiteral("r3"));
        QVERIFY(m_store.claimAttempt(run, attempt(run.id, 0), kOwnerA, leaseMs).ok());
        QVERIFY(m_store.releaseClaim(run.id, 0, kOwnerB).ok()); // not B's: nothing happens
        QVERIFY(m_store.run(run.id).value.has_value());
        QVERIFY(m_store.releaseClaim(run.id, 0, kOwnerA).ok());
        QVERIFY(!m_store.run(run.id).value.has_value());
    }

    // A run's next attempt claimed for another cluster (`resume --on`, a move): the run is that cluster's from then on,
    // so its tracker takes the claim over; released, the run goes back to the cluster of its latest job.
    void aClaimOnAnotherClusterTakesTheRunThere()
    {
        RunRecord run = newRun(QStringLiteral("r7"));
        JobRecord first = attempt(run.id, 0);
        first.jobId = QStringLiteral("5");
        first.cluster = run.cluster;
        QVERIFY(m_store.recordSubmission(run, first).ok());
        JobRecord there = attempt(run.id, 1);
        there.cluster = QStringLiteral("other");
        QVERIFY(m_store.claimAttempt(run, there, kOwnerA, -1).ok());
        QCOMPARE(m_store.run(run.id).value->cluster, QStringLiteral("other"));
        QVERIFY(m_store.expiredClaims(QStringLiteral("cluster")).value.isEmpty());
        QCOMPARE(m_store.expiredClaims(QStringLiteral("other")).value.size(), 1);
        QVERIFY(m_store.releaseClaim(run.id, 1, kOwnerA).ok());
        QCOMPARE(m_store.run(run.id).value->cluster, QStringLiteral("cluster"));
    }

    // A front claimed and stopped before it recorded a job: once the lease ran out, another takes it over,
    // and the first one, should it wake, can no longer record a job for it.
    void anExpiredClaimIsTakenOver()
    {
        const RunRecord run = newRun(QStringLiteral("r4"));
        QVERIFY(m_store.claimAttempt(run, attempt(run.id, 0), kOwnerA, -1, QStringLiteral("{\"run\":\"r4\"}")).ok());
        const auto expired = m_store.expiredClaims(QStringLiteral("cluster"));
        QVERIFY(expired.ok());
        QCOMPARE(expired.value.size(), 1);
        QCOMPARE(expired.value.first().owner, kOwnerA);
        QCOMPARE(expired.value.first().request, QStringLiteral("{\"run\":\"r4\"}"));
        const auto taken = m_store.claimAttempt(run, attempt(run.id, 0), kOwnerB, leaseMs);
        QCOMPARE(taken.value.outcome, AttemptClaim::Outcome::TakenOver);
        QCOMPARE(taken.value.owner, kOwnerA);
        QVERIFY(m_store.expiredClaims(QStringLiteral("cluster")).value.isEmpty());
        JobRecord late = attempt(run.id, 0);
        late.jobId = QStringLiteral("1");
        QVERIFY(!m_store.recordClaimedJob(run, late, kOwnerA).ok());
        // Its own expired claim is taken over too: the launcher that held it is gone and may have submitted.
        const RunRecord own = newRun(QStringLiteral("r6"));
        QVERIFY(m_store.claimAttempt(own, attempt(own.id, 0), kOwnerA, -1).ok());
        QCOMPARE(m_store.claimAttempt(own, attempt(own.id, 0), kOwnerA, leaseMs).value.outcome,
                 AttemptClaim::Outcome::TakenOver);
    }

    // A holder that was a process of this host and no longer runs (an agent killed after sbatch answered) is gone
    // for good: its claim is taken over at once, not after its lease. Elsewhere, or still running, it keeps it.
    void aGoneHolderIsKnownAtOnce_data()
    {
        QTest::addColumn<QString>("owner");
        QTest::addColumn<bool>("gone");
        QTest::addRow("this host, a pid that ended") << QStringLiteral("laptop:100:aaaa") << true;
        QTest::addRow("this host, a pid that runs") << QStringLiteral("laptop:200:bbbb") << false;
        QTest::addRow("another host") << QStringLiteral("desktop:100:aaaa") << false;
        QTest::addRow("an IPv6 host") << QStringLiteral("fe80::1:100:aaaa") << false;
        QTest::addRow("a host named like a prefix") << QStringLiteral("lap:100:aaaa") << false;
        QTest::addRow("no pid") << QStringLiteral("laptop::aaaa") << false;
        QTest::addRow("garbage") << QStringLiteral("nonsense") << false;
        QTest::addRow("empty") << QString() << false;
    }
    void aGoneHolderIsKnownAtOnce()
    {
        QFETCH(QString, owner);
        QFETCH(bool, gone);
        QCOMPARE(claimHolderGone(owner, QStringLiteral("laptop"), [](qint64 pid) { return pid == 200; }), gone);
    }

    void theClaimOfAProcessThatEndedIsTakenOverAtOnce()
    {
        QProcess ended;
        ended.start(QStringLiteral("true"), {});
        QVERIFY(ended.waitForStarted());
        const qint64 pid = ended.processId();
        QVERIFY(ended.waitForFinished());
        const QString deadHolder = QStringLiteral("%1:%2:dead").arg(QSysInfo::machineHostName()).arg(pid);
        QVERIFY(claimHolderGone(deadHolder));
        QVERIFY(!claimHolderGone(thisProcessClaimOwner()));
        const RunRecord run = newRun(QStringLiteral("r7"));
        QVERIFY(m_store.claimAttempt(run, attempt(run.id, 0), deadHolder, leaseMs).ok());
        QCOMPARE(m_store.expiredClaims(QStringLiteral("cluster")).value.size(), 1);
        const auto taken = m_store.claimAttempt(run, attempt(run.id, 0), thisProcessClaimOwner(), leaseMs);
        QCOMPARE(taken.value.outcome, AttemptClaim::Outcome::TakenOver);
        // Held by this process now, which runs: no longer taken over by another.
        QVERIFY(m_store.expiredClaims(QStringLiteral("cluster")).value.isEmpty());
    }

    // Two processes (two connections to one file) claim the same attempt: one wins.
    void twoStoresClaimOnce()
    {
        RunStore other;
        QVERIFY(other.open(m_path).ok());
        const RunRecord run = newRun(QStringLiteral("r5"));
        const auto first = m_store.claimAttempt(run, attempt(run.id, 1), kOwnerA, leaseMs);
        const auto second = other.claimAttempt(run, attempt(run.id, 1), kOwnerB, leaseMs);
        QVERIFY(first.ok() && second.ok());
        QCOMPARE(first.value.outcome, AttemptClaim::Outcome::Claimed);
        QCOMPARE(second.value.outcome, AttemptClaim::Outcome::HeldByAnother);
        QCOMPARE(other.jobs(run.id).value.size(), 1);
    }

private:
    QTemporaryDir m_dir;
    QString m_path;
    int m_count = 0;
    RunStore m_store;
};

TORCHDECK_TEST_MAIN(TestRunStoreClaims)
#include "tst_runstoreclaims.moc"
