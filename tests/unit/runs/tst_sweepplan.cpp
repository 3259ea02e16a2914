// One sweep planner for both fronts (core/runs/sweepplan.h): every point's run as it will be sent, the points the
// cluster cannot run refused by name, node-hours, one job array or not.
#include "core/runs/sweepplan.h"
#include "testmain.h"

#include <QSet>
#include <QTest>

using namespace torchdeck;
using namespace Qt::StringLiterals;

namespace {
SweepPlanRequest request(const QList<SweepAxis> &axes, LaunchMethod launch = LaunchMethod::Srun)
{
    SweepPlanRequest asked;
    asked.profile = defaultProfile(u"alpha"_s);
    asked.base.name = u"ae"_s;
    asked.base.wallTimeSeconds = 600;
    asked.base.launch = launch;
    asked.axes = axes;
    return asked;
}

SubmissionScript preview(const LaunchRequest &run)
{
    return renderSubmission(run, u"/work"_s, u"/work/trainer/build/torchdeck-train"_s);
}
} // namespace

class TestSweepPlan : public QObject {
    Q_OBJECT
private slots:
    void everyPointARunOfItsOwn()
    {
        const SweepPlan plan =
            planSweep(request({{u"nodes"_s, {u"1"_s, u"2"_s}}, {u"lr"_s, {u"0.1"_s, u"0.01"_s}}}), preview);
        QVERIFY2(plan.ok(), qPrintable(plan.problem));
        QCOMPARE(plan.points.size(), 4);
        QCOMPARE(plan.points.at(1).request.spec.name, u"ae.nodes1.lr0.01"_s);
        QCOMPARE(plan.points.at(2).request.spec.nodes, 2);
        QVERIFY(plan.points.at(3).request.spec.trainerArgs.contains(u"0.01"_s));
        QCOMPARE(plan.nodeSeconds, (1 + 1 + 2 + 2) * 600.0);
        QSet<QString> runs;
        for (const SweepPlanPoint &point : plan.points)
            runs.insert(point.request.runId);
        QCOMPARE(runs.size(), 4);
        QCOMPARE(plan.requests().at(2).pointJson, u"{\"lr\":\"0.1\",\"nodes\":\"2\"}"_s); // JSON: keys sorted
        // Points of different shapes (nodes) cannot be one job array; points that differ in a trainer option can.
        QVERIFY(!plan.asArray());
        const SweepPlan same = planSweep(request({{u"lr"_s, {u"0.1"_s, u"0.01"_s}}}), preview);
        QVERIFY2(same.asArray(), qPrintable(same.notArray));
    }

    void aValueThatIsNoNumberIsRefused()
    {
        const SweepPlan plan = planSweep(request({{u"nodes"_s, {u"1"_s, u"x"_s}}}), preview);
        QVERIFY(!plan.ok());
        QVERIFY2(plan.problem.contains(u"nodes wants a whole number: x"_s), qPrintable(plan.problem));
        QCOMPARE(plan.refused, 0);
        QVERIFY(plan.points.isEmpty());
    }

    void aPointTheClusterCannotRunIsNamed()
    {
        // A run on the login node itself has one node: the two-node point cannot run, so none is sent.
        const SweepPlan plan = planSweep(request({{u"nodes"_s, {u"1"_s, u"2"_s}}}, LaunchMethod::Local), preview);
        QVERIFY(!plan.ok());
        QCOMPARE(plan.refused, 1);
        QVERIFY2(plan.problem.startsWith(u"1 of 2 points cannot run on alpha, so none is sent:\n  nodes=2: "_s),
                 qPrintable(plan.problem));
    }

    void aJobPerPointWhenAskedOrNeeded()
    {
        SweepPlanRequest asked = request({{u"lr"_s, {u"0.1"_s, u"0.01"_s}}});
        asked.separateJobs = true;
        SweepPlan plan = planSweep(asked, preview);
        QVERIFY(plan.ok());
        QVERIFY(!plan.asArray());
        QCOMPARE(plan.notArray, u"a job per point was asked for"_s);
        // At most N running is a job array's: with separate jobs it cannot hold.
        asked.maxRunning = 1;
        plan = planSweep(asked, preview);
        QVERIFY(!plan.ok());
        QVERIFY2(plan.problem.contains(u"at most 1 running at a time needs one job array"_s), qPrintable(plan.problem));
    }

    void tooManyPointsAreRefused()
    {
        QStringList values;
        for (int i = 0; i <= kMostSweepPoints; ++i)
            values.append(QString::number(i + 1));
        const SweepPlan plan = planSweep(request({{u"nodes"_s, values}}), preview);
        QVERIFY(!plan.ok());
        QVERIFY(plan.points.isEmpty());
    }
};

TORCHDECK_TEST_MAIN(TestSweepPlan)
#include "tst_sweepplan.moc"
