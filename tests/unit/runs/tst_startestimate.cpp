// Where a run of several candidate clusters goes (core/runs/startestimate.h): sbatch --test-only's answers, the
// soonest, and what is kept with the run.
#include "core/runs/startestimate.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

namespace {

StartEstimate at(const QString &cluster, const QString &utc)
{
    StartEstimate estimate;
    estimate.cluster = cluster;
    estimate.start = QDateTime::fromString(utc, Qt::ISODate);
    return estimate;
}

StartEstimate skipped(const QString &cluster)
{
    StartEstimate estimate;
    estimate.cluster = cluster;
    estimate.skipped = true;
    estimate.said = QStringLiteral("no partition gpu");
    return estimate;
}

} // namespace

class TestStartEstimate : public QObject {
    Q_OBJECT

private slots:
    void commandQuotesTheScript()
    {
        const QString command = startEstimateCommand(SchedulerKind::Slurm, QStringLiteral("#!/bin/bash\necho 'it'\n"));
        QVERIFY(command.startsWith(QStringLiteral("date +%z; printf '%s' ")));
        QVERIFY(command.endsWith(QStringLiteral(" | sbatch --test-only 2>&1")));
        QVERIFY(command.contains(QStringLiteral("'\\''it'\\''")));
        QVERIFY(startEstimateCommand(SchedulerKind::Pbs, QStringLiteral("x")).isEmpty());
    }

    void readsTheStartInTheClustersZone()
    {
        const StartEstimate estimate = parseStartEstimate(
            QStringLiteral("a"), 0,
            "+0130\nsbatch: Job 52 to start at 2026-11-29T02:15:01 using 1 processors on nodes node1 in partition "
            "debug\n");
        QVERIFY(estimate.known());
        QCOMPARE(estimate.start, QDateTime::fromString(QStringLiteral("2026-11-29T00:45:01Z"), Qt::ISODate));
        QVERIFY(estimate.said.startsWith(QStringLiteral("sbatch: Job 52 to start at")));
    }

    void aRefusalIsSkippedInTheSchedulersWords()
    {
        const StartEstimate estimate =
            parseStartEstimate(QStringLiteral("a"), 1,
                               "+0000\nsbatch: error: invalid partition specified: nosuch\nallocation failure: "
                               "Invalid partition name specified\n");
        QVERIFY(estimate.skipped);
        QVERIFY(!estimate.known());
        QCOMPARE(estimate.said, QStringLiteral("the scheduler refused it: sbatch: error: invalid partition specified: "
                                               "nosuch; allocation failure: Invalid partition name specified"));
        const StartEstimate torn = parseStartEstimate(QStringLiteral("a"), 0, "+0000\nsbatch: Job 5 to sta");
        QVERIFY(torn.skipped);
        QVERIFY(torn.said.contains(QStringLiteral("no start estimate")));
        QVERIFY(parseStartEstimate(QStringLiteral("a"), 255, {}).said.contains(QStringLiteral("exited 255")));
    }

    void theSoonestWinsTiesGoToTheFirstNamed()
    {
        const StartEstimate later = at(QStringLiteral("a"), QStringLiteral("2026-11-29T02:15:00Z"));
        const StartEstimate sooner = at(QStringLiteral("b"), QStringLiteral("2026-11-29T01:15:00Z"));
        const StartEstimate tie = at(QStringLiteral("c"), QStringLiteral("2026-11-29T01:15:40Z"));
        StartEstimate unknown;
        unknown.cluster = QStringLiteral("pbs");
        QCOMPARE(soonestStart({later, sooner}), 1);
        QCOMPARE(soonestStart({tie, sooner}), 0);
        QCOMPARE(soonestStart({sooner, tie}), 0);
        QCOMPARE(soonestStart({unknown, later}), 1);
        QCOMPARE(soonestStart({skipped(QStringLiteral("x")), unknown}), 1);
        QCOMPARE(soonestStart({skipped(QStringLiteral("x"))}), -1);
        QCOMPARE(soonestStart({}), -1);
    }

    void keptWithTheRunAndSaidInWords()
    {
        Placement placement;
        placement.chosen = QStringLiteral("b");
        placement.asked = QDateTime::fromString(QStringLiteral("2026-11-29T01:14:30Z"), Qt::ISODate);
        placement.estimates = {at(QStringLiteral("a"), QStringLiteral("2026-11-29T02:15:00Z")),
                               at(QStringLiteral("b"), QStringLiteral("2026-11-29T01:15:00Z")),
                               skipped(QStringLiteral("c"))};
        const Placement read = placementFromJson(placementJson(placement));
        QCOMPARE(read.chosen, placement.chosen);
        QCOMPARE(read.asked, placement.asked);
        QCOMPARE(read.estimates.size(), 3);
        QCOMPARE(read.estimates.at(0).start, placement.estimates.at(0).start);
        QVERIFY(read.estimates.at(2).skipped);
        QCOMPARE(placementWhy(read),
                 QStringLiteral("chose b, where it would start soonest: a in 1h00m, b now, c skipped"));
        const QStringList lines = describeEstimates(read);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines.at(0).startsWith(QStringLiteral("a   2026-11-29 ")));
        QVERIFY(lines.at(0).endsWith(QStringLiteral("(in 1h00m)")));
        QCOMPARE(lines.at(1), QStringLiteral("b   now   (chosen)"));
        QCOMPARE(lines.at(2), QStringLiteral("c   skipped: no partition gpu"));
        QVERIFY(!placementFromJson(QStringLiteral("{torn")).isSet());
        QVERIFY(!placementFromJson(QString()).isSet());
    }
};

TORCHDECK_TEST_MAIN(TestStartEstimate)
#include "tst_startestimate.moc"
