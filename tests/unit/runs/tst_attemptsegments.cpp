// A run's attempts over its curve: which points each job wrote, which a later attempt discarded, and why each
// ended; on a run that hit its wall time, was restarted, and then branched from an older checkpoint.
#include "../attemptrecords.h"
#include "core/runs/attemptsegments.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

Q_DECLARE_METATYPE(torchdeck::AttemptEnd)
Q_DECLARE_METATYPE(torchdeck::JobRecord)

class TestAttemptSegments : public QObject {
    Q_OBJECT
private slots:
    void restartThenBranch();
    void ends_data();
    void ends();
    void jobWithoutPoints();
};

void TestAttemptSegments::restartThenBranch()
{
    // Attempt 0 trains steps 1..10 and hits its wall time; its latest checkpoint is at step 6. Attempt 1
    // resumes there and trains 7..12. Then the user resumes from step 4: attempt 2 trains 5..8.
    const MetricSeries series = restartedThenBranched();
    const QList<JobRecord> jobs = {job(0, "timeout"), job(1, "completed", "ckpt-6.pt", 0),
                                   job(2, "running", "ckpt-4.pt")};
    const QList<CheckpointRecord> checkpoints = {checkpoint(0, 4), checkpoint(0, 6), checkpoint(1, 12)};

    const QList<AttemptSegment> segments = attemptSegments(series, jobs, checkpoints);
    QCOMPARE(segments.size(), 3);
    struct Expected {
        const char *jobId;
        AttemptEnd end;
        double firstX, lastX;
        qsizetype visible, discarded;
    };
    const Expected expected[] = {
        {"100", AttemptEnd::WallTime, 1, 10, 4, 6}, // 5..6 by the branch, 7..10 by the restart
        {"101", AttemptEnd::Branched, 7, 12, 0, 6}, // all its steps were after step 4
        {"102", AttemptEnd::Running, 5, 8, 4, 0},
    };
    for (int i = 0; i < 3; ++i) {
        const AttemptSegment &segment = segments.at(i);
        QCOMPARE(segment.attempt, i);
        QCOMPARE(segment.jobId, QString::fromLatin1(expected[i].jobId));
        QCOMPARE(segment.end, expected[i].end);
        QCOMPARE(segment.firstX, expected[i].firstX);
        QCOMPARE(segment.lastX, expected[i].lastX);
        QCOMPARE(segment.visiblePoints, expected[i].visible);
        QCOMPARE(segment.discardedPoints, expected[i].discarded);
    }
    QCOMPARE(attemptEndName(AttemptEnd::WallTime), QStringLiteral("wall time"));

    // The boundaries drawn: where attempts 1 and 2 began, named after the job that ended before each.
    const QList<AttemptBoundary> boundaries = attemptBoundaries(series, jobs, checkpoints);
    QCOMPARE(boundaries.size(), 2);
    QCOMPARE(boundaries.at(0).x, 7.0);
    QCOMPARE(boundaries.at(0).label, QStringLiteral("job 100: wall time"));
    QCOMPARE(boundaries.at(1).x, 5.0);
    QCOMPARE(boundaries.at(1).endedAttempt, 1);
    QCOMPARE(boundaries.at(1).label, QStringLiteral("job 101: branched"));
    QVERIFY(attemptBoundaries(series, {jobs.constFirst()}, checkpoints).isEmpty()); // one job: none
    // A run continued on another cluster says where it went on.
    QList<JobRecord> moved = jobs;
    for (JobRecord &each : moved)
        each.cluster = each.attempt < 2 ? QStringLiteral("narvi") : QStringLiteral("puhti");
    QCOMPARE(attemptBoundaries(series, moved, checkpoints).at(0).label, QStringLiteral("job 100: wall time"));
    QCOMPARE(attemptBoundaries(series, moved, checkpoints).at(1).label,
             QStringLiteral("job 101: branched; on puhti from here"));
}

void TestAttemptSegments::ends_data()
{
    QTest::addColumn<JobRecord>("first");
    QTest::addColumn<bool>("hasNext");
    QTest::addColumn<AttemptEnd>("end");
    QTest::newRow("preempted") << job(0, "preempted") << true << AttemptEnd::Preempted;
    QTest::newRow("requeued") << job(0, "requeued") << true << AttemptEnd::Requeued;
    QTest::newRow("exit 75: checkpointed on the signal") << job(0, "failed", "", 75) << true << AttemptEnd::WallTime;
    QTest::newRow("exit 75, no state (PBS)") << job(0, "unknown", "", 75) << true << AttemptEnd::WallTime;
    QTest::newRow("a real error") << job(0, "failed", "", 1) << false << AttemptEnd::Failed;
    QTest::newRow("cancelled") << job(0, "cancelled") << false << AttemptEnd::Cancelled;
    QTest::newRow("done") << job(0, "completed", "", 0) << false << AttemptEnd::Completed;
    QTest::newRow("done, then more epochs") << job(0, "completed", "", 0) << true << AttemptEnd::Continued;
    QTest::newRow("still running") << job(0, "running") << false << AttemptEnd::Running;
}

void TestAttemptSegments::ends()
{
    QFETCH(JobRecord, first);
    QFETCH(bool, hasNext);
    QFETCH(AttemptEnd, end);
    QList<JobRecord> jobs{first};
    if (hasNext)
        jobs.append(job(1, "running", "ckpt-6.pt")); // from the latest: no branch
    const QList<AttemptSegment> segments = attemptSegments(MetricSeries(), jobs, {checkpoint(0, 6)});
    QCOMPARE(segments.constFirst().end, end);
}

void TestAttemptSegments::jobWithoutPoints()
{
    MetricSeries series;
    steps(&series, 0, 1, 3);
    const QList<AttemptSegment> segments =
        attemptSegments(series, {job(0, "timeout"), job(1, "pending", "ckpt-3.pt")}, {});
    QCOMPARE(segments.size(), 2);
    QVERIFY(qIsNaN(segments.at(1).firstX));
    QCOMPARE(segments.at(1).visiblePoints, 0);
}

TORCHDECK_TEST_MAIN(TestAttemptSegments)
#include "tst_attemptsegments.moc"
