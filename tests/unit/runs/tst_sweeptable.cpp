#include "../metrics/metricevents.h"
#include "core/runs/sweeptable.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QTest>
#include <cmath>

using namespace torchdeck;
using namespace Qt::StringLiterals;

namespace {
SweepRow row(int nodes, int ranks, double seconds, const QString &runId = QStringLiteral("0123456789"))
{
    SweepRow r;
    r.runId = runId;
    r.state = QStringLiteral("completed");
    r.varied = {{QStringLiteral("nodes"), QString::number(nodes)},
                {QStringLiteral("tasks-per-node"), QString::number(ranks / nodes)}};
    r.nodes = nodes;
    r.ranks = ranks;
    r.secondsPerEpoch = seconds;
    return r;
}
} // namespace

class TestSweepTable : public QObject {
    Q_OBJECT
private slots:
    void steadyStateLeavesTheFirstEpochOut()
    {
        QVERIFY(std::isnan(steadyMean({})));
        QCOMPARE(steadyMean({9.0}), 9.0);
        QCOMPARE(steadyMean({9.0, 2.0, 4.0}), 3.0);
    }

    void speedupAgainstTheFewestRanks()
    {
        QList<SweepRow> rows{row(2, 8, 1.0), row(1, 1, 8.0), row(1, 4, 2.5), row(2, 4, 2.0), row(1, 2, kNoValue)};
        fillSpeedups(rows);
        QCOMPARE(rows.at(1).speedup, 1.0);
        QCOMPARE(rows.at(1).efficiency, 1.0);
        QCOMPARE(rows.at(0).speedup, 8.0);
        QCOMPARE(rows.at(0).efficiency, 1.0);
        QCOMPARE(rows.at(2).speedup, 3.2);
        QCOMPARE(rows.at(2).efficiency, 0.8);
        QCOMPARE(rows.at(3).speedup, 4.0);
        QVERIFY(std::isnan(rows.at(4).speedup)); // no time: nothing to compare
        QList<SweepRow> learningRates{row(1, 2, 8.0), row(1, 2, 7.5), row(1, 2, 8.2)};
        fillSpeedups(learningRates); // one shape: its times differ by noise
        QVERIFY(std::all_of(learningRates.cbegin(), learningRates.cend(),
                            [](const SweepRow &r) { return std::isnan(r.speedup) && std::isnan(r.efficiency); }));
        sortSweepRows(rows, true);
        QCOMPARE(rows.at(0).ranks, 1);
        QCOMPARE(rows.at(2).ranks, 4);
        QCOMPARE(rows.at(2).nodes, 1); // same ranks: fewer nodes first
        QCOMPARE(rows.at(4).ranks, 8);
    }

    void hyperparameterRowsByBestValLoss()
    {
        QList<SweepRow> rows{row(1, 1, 1), row(1, 1, 1), row(1, 1, 1)};
        rows[0].bestValLoss = 0.5;
        rows[2].bestValLoss = 0.2;
        sortSweepRows(rows, false);
        QCOMPARE(rows.at(0).bestValLoss, 0.2);
        QCOMPARE(rows.at(1).bestValLoss, 0.5);
        QVERIFY(std::isnan(rows.at(2).bestValLoss));
    }

    void wholeSweepActionsChooseTheirRuns()
    {
        QList<RunRecord> runs;
        for (JobState state :
             {JobState::Completed, JobState::Failed, JobState::Running, JobState::Timeout, JobState::Pending}) {
            RunRecord run;
            run.id = jobStateName(state);
            run.state = jobStateName(state);
            runs.append(run);
        }
        const auto ids = [](const QList<RunRecord> &chosen) {
            QStringList out;
            for (const RunRecord &run : chosen)
                out.append(run.id);
            return out;
        };
        QCOMPARE(ids(sweepRunsToResume(runs)),
                 QStringList({jobStateName(JobState::Failed), jobStateName(JobState::Timeout)}));
        QCOMPARE(ids(sweepRunsGoingOn(runs)),
                 QStringList({jobStateName(JobState::Running), jobStateName(JobState::Pending)}));
    }

    void rowFromTheStoredSeries()
    {
        RunRecord run;
        run.id = QStringLiteral("abcdef0123");
        run.state = QStringLiteral("completed");
        run.specJson = QStringLiteral(R"({"nodes":2,"tasksPerNode":2})");
        RunSeries series;
        MetricEvent first = testing::epochEvent(1, 3, 0.5, 0.6, 10.0);
        first.samplesPerSecond = 100;
        MetricEvent second = testing::epochEvent(2, 3, 0.4, 0.3, 4.0);
        second.samplesPerSecond = 250;
        MetricEvent third = testing::epochEvent(3, 3, 0.3, 0.35, 6.0);
        third.samplesPerSecond = 150;
        series.apply({testing::stepEvent(90, 0.9, 3), first, second, third, testing::stepEvent(100, 0.05, 3)});
        JobRecord job;
        job.jobId = QStringLiteral("17");
        const SweepRow r = sweepRowOf(run, {job}, series, {{QStringLiteral("nodes"), QStringLiteral("2")}});
        QCOMPARE(r.nodes, 2);
        QCOMPARE(r.ranks, 4);
        QCOMPARE(r.secondsPerEpoch, 5.0);
        QCOMPARE(r.samplesPerSecond, 200.0);
        QCOMPARE(r.finalValLoss, 0.35);
        QCOMPARE(r.bestValLoss, 0.3);
        QCOMPARE(r.finalTrainLoss, 0.3); // the last epoch's mean, as metrics shows it, not a step's 0.05
        QCOMPARE(r.jobId, QStringLiteral("17"));
    }

    void withoutEpochTimesTheJobsElapsedTime()
    {
        // A command that logs no epochs is timed by how long its jobs ran (a requeued run: both jobs).
        RunRecord run;
        run.id = QStringLiteral("abcdef0123");
        run.specJson = QStringLiteral(R"({"nodes":1,"tasksPerNode":2})");
        JobRecord first;
        first.scheduling.elapsedSeconds = 50;
        JobRecord second;
        second.scheduling.elapsedSeconds = 70;
        SweepRow r = sweepRowOf(run, {first, second}, RunSeries(), {{QStringLiteral("env:N"), QStringLiteral("2")}});
        QCOMPARE(r.secondsPerEpoch, 120.0);
        QVERIFY(r.timedByJob);
        QCOMPARE(sweepTableCells(r).at(3), u"120 (job)"_s);
        QCOMPARE(sweepRowToJson(r).value(u"timed_by"_s).toString(), u"job"_s);
        QCOMPARE(sweepCsv({r}).section(u'\n', 1, 1).section(u',', 3, 3), u"120"_s);
        QVERIFY(std::isnan(sweepRowOf(run, {JobRecord()}, RunSeries(), {}).secondsPerEpoch)); // not said yet
        // Compared among themselves only when no point has epoch times.
        SweepRow faster = r;
        faster.secondsPerEpoch = 60;
        faster.ranks = 4;
        QList<SweepRow> byJobs{r, faster};
        fillSpeedups(byJobs);
        QCOMPARE(byJobs.at(1).speedup, 2.0);
        QList<SweepRow> mixed{r, row(1, 1, 8.0)};
        fillSpeedups(mixed);
        QVERIFY(std::isnan(mixed.at(0).speedup));
        QCOMPARE(mixed.at(1).speedup, 1.0);
    }

    void secondsKeepThreeDigits()
    {
        QCOMPARE(sweepTableCells(row(1, 1, 0.04868)).at(3), u"0.0487"_s);
        QCOMPARE(sweepTableCells(row(1, 1, 8.0)).at(3), u"8.00"_s);
        QCOMPARE(sweepTableCells(row(1, 1, 123.4)).at(3), u"123"_s);
        QCOMPARE(sweepTableCells(row(1, 1, kNoValue)).at(3), QString());
    }

    void markdownAndCsv()
    {
        QList<SweepRow> rows{row(1, 1, 8.0, QStringLiteral("aaaaaaaa-1")),
                             row(2, 4, 2.0, QStringLiteral("bbbbbbbb-2"))};
        rows[1].state = QStringLiteral("fail,ed \"x\"");
        fillSpeedups(rows);
        const QString markdown = sweepMarkdown(rows);
        QCOMPARE(markdown.section(u'\n', 0, 0),
                 QStringLiteral("| tasks-per-node | nodes | ranks | s/epoch | samples/s | "
                                "speedup | efficiency | train loss | val loss | state "
                                "| run |"));
        QCOMPARE(markdown.section(u'\n', 3, 3),
                 QStringLiteral("| 2 | 2 | 4 | 2.00 |  | 4.00 | 1.00 |  |  | fail,ed \"x\" | bbbbbbbb |"));
        const QString csv = sweepCsv(rows);
        QCOMPARE(csv.section(u'\n', 0, 0), QStringLiteral("tasks-per-node,nodes,ranks,s/epoch,samples/s,speedup,"
                                                          "efficiency,train loss,val loss,state,run"));
        QCOMPARE(csv.section(u'\n', 1, 1), QStringLiteral("1,1,1,8.00,,1.00,1.00,,,completed,aaaaaaaa-1"));
        QCOMPARE(csv.section(u'\n', 2, 2), QStringLiteral("2,2,4,2.00,,4.00,1.00,,,\"fail,ed \"\"x\"\"\",bbbbbbbb-2"));
        const QJsonObject json = sweepRowToJson(rows.at(1));
        QCOMPARE(json.value(u"speedup"_s).toDouble(), 4.0);
        QVERIFY(json.value(u"samples_per_second"_s).isNull());
        QCOMPARE(json.value(u"varied"_s).toObject().value(u"nodes"_s).toString(), QStringLiteral("2"));
    }
};

TORCHDECK_TEST_MAIN(TestSweepTable)
#include "tst_sweeptable.moc"
