#include "../unit/metrics/metricevents.h"
#include "client/agentclient.h"
#include "core/profiles/profilestore.h"
#include "core/store/keptlogs.h"
#include "core/store/runmetrics.h"
#include "core/store/runstore.h"
#include "core/store/seriescache.h"
#include "gui/logpanel.h"
#include "gui/runcharts.h"
#include "gui/runchartspanel.h"
#include "gui/runsummarytable.h"
#include "gui/runview.h"
#include "testmain.h"

#include <QChart>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QListWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <memory>

using namespace torchdeck;

namespace {
MetricEvent step(qint64 at, double loss)
{
    return testing::stepEvent(at, loss, 1, 1000 + at);
}

MetricEvent epoch(qint64 n, double val)
{
    return testing::epochEvent(n, 2, val, val, 4);
}

// A run view showing the run `runId` of `store`, with no agent behind it: the view reads the store.
struct ShownRun {
    ShownRun(RunStore *store, const QString &profilesPath, const QString &runId)
        : profiles(profilesPath)
        , agent({}, store)
    {
        agent.setProfiles(&profiles);
        view = std::make_unique<RunView>(&agent);
        view->showRun(runId);
    }
    ProfileStore profiles;
    AgentClient agent;
    std::unique_ptr<RunView> view;
};
} // namespace

// The run view offline, on a store of three runs: compare with others through its chooser, export CSV.
class TestRunView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        QVERIFY(m_store.open(m_dir.filePath(QStringLiteral("runs.sqlite"))).ok());
        for (int i = 0; i < 3; ++i) {
            RunRecord run;
            run.id = QStringLiteral("0000000%1-aaaa-bbbb-cccc-000000000000").arg(i);
            run.name = QStringLiteral("run-%1").arg(i);
            run.cluster = QStringLiteral("alpha");
            run.state = QStringLiteral("completed");
            run.created = QDateTime::currentDateTimeUtc().addSecs(i * 60);
            QVERIFY(m_store.addRun(run).ok());
            QList<MetricEvent> events;
            for (int s = 1; s <= 4 + i; ++s)
                events.append(step(s * 10, 1.0 / (s + i)));
            events.append(epoch(1, 0.5 + i));
            QVERIFY(m_store.appendMetrics(run.id, 0, events).ok());
            m_ids.append(run.id);
        }
    }

    void overlaysOtherRunsWithTheirValues()
    {
        ShownRun shown(&m_store, m_dir.filePath(QStringLiteral("clusters.json")), m_ids.at(0));
        RunView &view = *shown.view;
        RunSeriesCache *cache = shown.agent.seriesCache();
        QCOMPARE(view.charts()->drawnPoints(SeriesKind::TrainLoss).size(), 4);
        QCOMPARE(view.charts()->drawnPoints(SeriesKind::Throughput).size(), 4);
        QCOMPARE(&view.metrics()->series(), cache->series(m_ids.at(0))); // shown from the cache, not a copy

        QVERIFY(view.chartsPanel()->summaryTable()->isHidden());     // nothing overlaid
        view.chartsPanel()->compareWith({m_ids.at(0), m_ids.at(2)}); // the window's selection: the shown run too
        QCOMPARE(view.chartsPanel()->comparedRuns(), QStringList{m_ids.at(2)});
        // Under the charts, as their legend: both runs' whole names beside their curves' colours, their final and best
        // values; the charts' own legends name no run.
        RunSummaryTable *table = view.chartsPanel()->summaryTable();
        QVERIFY(!table->isHidden());
        QCOMPARE(table->rowCount(), 2); // a row per run
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("run-0"));
        QCOMPARE(table->item(1, 0)->toolTip(), table->item(1, 0)->text());
        QVERIFY(!table->item(1, 0)->icon().isNull()); // the dashed sample of its curve
        QCOMPARE(table->horizontalHeaderItem(2)->text(), QStringLiteral("Final loss"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("0.25")); // the shown run's: 1 / 4
        QCOMPARE(table->item(1, 2)->text(), QString::number(1.0 / 8, 'g', 4));
        QVERIFY(table->item(1, 2)->font().bold()); // the lower one
        QVERIFY(!table->item(0, 2)->font().bold());
        QVERIFY(table->height() >= table->horizontalHeader()->height() + table->rowHeight(0) + table->rowHeight(1));
        for (QChart *chart : view.charts()->charts()) {
            for (QLegendMarker *marker : chart->legend()->markers()) {
                if (chart->legend()->isVisible() && marker->isVisible())
                    QVERIFY2(!marker->label().contains(QStringLiteral("run-")), qPrintable(marker->label()));
            }
        }
        QCOMPARE(view.charts()->comparedRuns(), 1);
        QCOMPARE(view.charts()->drawnComparison(0, SeriesKind::TrainLoss).size(), 6);
        QCOMPARE(view.charts()->drawnComparison(0, SeriesKind::ValLoss), QList<QPointF>{QPointF(1, 2.5)});

        // The compared run is still running: its new metrics reach the overlay (coalesced), through the cache
        // as the agent's events arrive.
        const QList<MetricEvent> more{step(70, 0.05), step(80, 0.04)};
        const qint64 first = m_store.metricsEnd(m_ids.at(2)).value;
        QVERIFY(m_store.appendMetrics(m_ids.at(2), 0, more).ok());
        cache->apply(m_ids.at(2), 0, more, first);
        view.runMetricsArrived(m_ids.at(2));
        QCOMPARE(view.charts()->drawnComparison(0, SeriesKind::TrainLoss).size(), 6);
        QTRY_COMPARE(view.charts()->drawnComparison(0, SeriesKind::TrainLoss).size(), 8);
        QCOMPARE(view.charts()->drawnPoints(SeriesKind::TrainLoss).size(), 4); // the shown run is unchanged

        // The shown run's events redraw its charts from the cache; a gap makes it read the store again.
        const QList<MetricEvent> shownMore{step(50, 0.2)};
        const qint64 shownFirst = m_store.metricsEnd(m_ids.at(0)).value;
        QVERIFY(m_store.appendMetrics(m_ids.at(0), 0, shownMore).ok());
        cache->apply(m_ids.at(0), 0, shownMore, shownFirst);
        QTRY_COMPARE(view.charts()->drawnPoints(SeriesKind::TrainLoss).size(), 5);
        const QList<MetricEvent> missed{step(60, 0.15)}, after{step(70, 0.1)};
        QVERIFY(m_store.appendMetrics(m_ids.at(0), 0, missed).ok());
        const qint64 afterFirst = m_store.metricsEnd(m_ids.at(0)).value;
        QVERIFY(m_store.appendMetrics(m_ids.at(0), 0, after).ok());
        cache->apply(m_ids.at(0), 0, after, afterFirst); // `missed` never came: read again, whole
        QTRY_COMPARE(view.charts()->drawnPoints(SeriesKind::TrainLoss).size(), 7);
        QCOMPARE(&view.metrics()->series(), cache->series(m_ids.at(0)));

        view.chartsPanel()->compareWith({m_ids.at(1), m_ids.at(2)});
        QCOMPARE(view.charts()->comparedRuns(), 2);
        view.showRun(m_ids.at(2)); // showing a compared run: not compared with itself, the other stays
        QCOMPARE(view.chartsPanel()->comparedRuns(), QStringList{m_ids.at(1)});
        QCOMPARE(view.charts()->comparedRuns(), 1);
    }

    void exportsTheRunsMetricsAsCsv()
    {
        const ShownRun shown(&m_store, m_dir.filePath(QStringLiteral("clusters.json")), m_ids.at(1));
        RunView &view = *shown.view;
        const QString path = m_dir.filePath(QStringLiteral("export.csv"));
        QString error;
        QVERIFY2(view.chartsPanel()->exportCsv(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QCOMPARE(lines.constFirst(), QByteArray("attempt,event,time,epoch,step,loss,lr,samples_per_s,val_"
                                                "loss,val_accuracy,seconds,discarded,source"));
        QCOMPARE(lines.size(), 1 + 5 + 1 + 1); // header, 5 steps, 1 epoch, the last line end
        QCOMPARE(lines.at(1), QByteArray("0,step,,1,10,0.5,,1010,,,,0,metrics_file"));
        QCOMPARE(lines.at(6), QByteArray("0,epoch,,1,,1.5,,,1.5,,4,0,metrics_file"));
    }

    // A waiting run says why beside its state, and when the scheduler expects to start it.
    void saysWhyItWaits()
    {
        JobRecord job = addRunWithJob(QStringLiteral("waiting"), QStringLiteral("pending"));
        QVERIFY(!job.runId.isEmpty());
        job.scheduling = {QStringLiteral("PENDING"),
                          QStringLiteral("Priority"),
                          QDateTime(QDate(2030, 1, 2), QTime(3, 4), Qt::LocalTime).toUTC(),
                          {}};
        QVERIFY(m_store.saveJob(job).ok());
        const ShownRun shown(&m_store, m_dir.filePath(QStringLiteral("clusters.json")), job.runId);
        const QList<QLabel *> labels = shown.view->findChildren<QLabel *>();
        const bool said = std::any_of(labels.cbegin(), labels.cend(), [](const QLabel *label) {
            return label->text().contains(QStringLiteral(
                "pending (higher-priority jobs are ahead of it (Priority); expected start 2030-01-02 03:04)"));
        });
        QVERIFY(said);
        QVERIFY(m_store.removeRun(job.runId).ok());
    }

    // The log is read periodically only while it is shown and its job runs: not behind another tab, not for an
    // ended job (read once), not while the window is minimized.
    void readsTheLogOnlyWhileShownAndGrowing()
    {
        JobRecord job = addRunWithJob(QStringLiteral("running"), QStringLiteral("running"));
        QVERIFY(!job.runId.isEmpty());
        job.stdoutPath = QStringLiteral("/work/runs/running-run/attempt-0-8.out");
        QVERIFY(m_store.saveJob(job).ok());
        const ShownRun shown(&m_store, m_dir.filePath(QStringLiteral("clusters.json")), job.runId);
        RunView &view = *shown.view;
        LogFollower *follower = view.logPanel()->follower();
        QCOMPARE(follower->path(), job.stdoutPath);
        QVERIFY(!follower->isStreaming()); // the charts are shown, not the log
        view.tabs()->setCurrentWidget(view.logPanel());
        QVERIFY(follower->isStreaming());
        view.setOnScreen(false); // minimized
        QVERIFY(!follower->isStreaming());
        view.setOnScreen(true);
        QVERIFY(follower->isStreaming());
        job.state = QStringLiteral("completed");
        QVERIFY(m_store.saveJob(job).ok());
        view.runChanged(job.runId);
        QVERIFY(!follower->isStreaming()); // ended: its last bytes are read once, then nothing
        view.tabs()->setCurrentIndex(0);
        QVERIFY(m_store.removeRun(job.runId).ok());
    }

    // An ended job's log kept on this machine (core/store/keptlogs.h) is shown from there: no cluster, no agent.
    void showsAnEndedJobsKeptLog()
    {
        JobRecord job = addRunWithJob(QStringLiteral("kept"), QStringLiteral("completed"));
        QVERIFY(!job.runId.isEmpty());
        job.stdoutPath = QStringLiteral("/work/runs/kept-run/attempt-0-9.out");
        QVERIFY(m_store.saveJob(job).ok());
        QString error;
        QVERIFY2(writeKeptLog(m_store.path(), job.runId, 0, KeptLog{"epoch 1\nepoch 2\ndone\n", {}, -1, -1}, &error),
                 qPrintable(error));
        const ShownRun shown(&m_store, m_dir.filePath(QStringLiteral("clusters.json")), job.runId);
        RunView &view = *shown.view;
        view.tabs()->setCurrentWidget(view.logPanel());
        QTRY_COMPARE(view.logPanel()->text(), QStringLiteral("epoch 1\nepoch 2\ndone\n"));
        view.tabs()->setCurrentIndex(0);
        QVERIFY(m_store.removeRun(job.runId).ok());

        // Only the end of a long log was kept (20 MiB on the cluster): the panel's last lines are in it.
        JobRecord longer = addRunWithJob(QStringLiteral("kept-end"), QStringLiteral("completed"));
        longer.stdoutPath = QStringLiteral("/work/runs/kept-end-run/attempt-0-10.out");
        QVERIFY(m_store.saveJob(longer).ok());
        QVERIFY2(
            writeKeptLog(m_store.path(), longer.runId, 0, KeptLog{"ep 8\nstep 9\ndone\n", {}, 20 << 20, -1}, &error),
            qPrintable(error));
        const ShownRun end(&m_store, m_dir.filePath(QStringLiteral("clusters.json")), longer.runId);
        end.view->tabs()->setCurrentWidget(end.view->logPanel());
        QTRY_COMPARE(end.view->logPanel()->text(), QStringLiteral("step 9\ndone\n"));
        end.view->tabs()->setCurrentIndex(0);
        QVERIFY(m_store.removeRun(longer.runId).ok());
    }

private:
    // A run named `name` of cluster "c" ("<name>-run") with one job, both in `state`: saved and returned.
    JobRecord addRunWithJob(const QString &name, const QString &state)
    {
        RunRecord run;
        run.id = name + QStringLiteral("-run");
        run.name = name;
        run.cluster = QStringLiteral("c");
        run.state = state;
        const bool added = m_store.addRun(run).ok();
        JobRecord job;
        job.runId = run.id;
        job.jobId = QString::number(qHash(name) % 1000);
        job.state = state;
        return added && m_store.saveJob(job).ok() ? job : JobRecord{};
    }

    QTemporaryDir m_dir;
    RunStore m_store;
    QStringList m_ids;
};

TORCHDECK_TEST_MAIN(TestRunView)
#include "tst_runview.moc"
