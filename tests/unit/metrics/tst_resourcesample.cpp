#include "core/metrics/resourcesample.h"
#include "core/metrics/runseries.h"
#include "testmain.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace torchdeck;

class TestResourceSample : public QObject {
    Q_OBJECT
private slots:
    void eventRoundTrip();
    void seriesOverWallTime();
    void jsonAndSummary();
};

namespace {
ResourceSample sampleAt(double time, double cpu, double rssMiB)
{
    ResourceSample sample;
    sample.time = time;
    sample.via = QStringLiteral("proc");
    TaskUse task;
    task.node = QStringLiteral("node.example:1"); // dots and a colon in a node name survive
    task.task = QStringLiteral("0");
    task.cpuPercent = cpu;
    task.cpuSeconds = cpu;
    task.rssMiB = rssMiB;
    task.processes = 3;
    sample.tasks = {task};
    sample.gpus = {GpuUse{QStringLiteral("g1"), 0, 90, 2048, 4096}, GpuUse{QStringLiteral("g1"), 1, 70, 1024, 4096}};
    return sample;
}
} // namespace

void TestResourceSample::eventRoundTrip()
{
    const ResourceSample sample = sampleAt(1000, 150, 512);
    const MetricEvent event = resourceEvent(sample);
    QCOMPARE(event.kind, MetricEventKind::Resources);
    QCOMPARE(event.source, MetricSource::Resources);
    const ResourceSample back = resourceSampleOf(event);
    QCOMPARE(back.time, 1000.0);
    QCOMPARE(back.via, QStringLiteral("proc"));
    QCOMPARE(back.tasks.size(), 1);
    QCOMPARE(back.tasks.constFirst().node, QStringLiteral("node.example:1"));
    QCOMPARE(back.tasks.constFirst().rssMiB, 512.0);
    QCOMPARE(back.tasks.constFirst().processes, 3);
    QCOMPARE(back.gpus.size(), 2);
    QCOMPARE(back.gpus.at(1).index, 1);
    QCOMPARE(back.gpus.at(1).utilization, 70.0);
    QCOMPARE(metricEventName(event.kind), QStringLiteral("resources"));
}

void TestResourceSample::seriesOverWallTime()
{
    RunSeries series;
    MetricEvent step;
    step.kind = MetricEventKind::Step;
    step.step = 1;
    step.loss = 2;
    step.time = 990;
    series.apply(step);
    const RunSeriesChanges changes = series.apply(resourceEvent(sampleAt(1000, 150, 512)));
    QVERIFY(changes.resources);
    series.apply(resourceEvent(sampleAt(1010, 250, 1024)));
    series.apply(resourceEvent(sampleAt(1005, 1, 1))); // older than the latest: not drawn back in time
    QCOMPARE(series.resourceNames(), (QStringList{QStringLiteral("CPU %"), QStringLiteral("memory GiB"),
                                                  QStringLiteral("GPU %"), QStringLiteral("GPU memory GiB"),
                                                  QStringLiteral("GPU g1:0 %"), QStringLiteral("GPU g1:1 %")}));
    QCOMPARE(series.resource(QStringLiteral("CPU %"))->visiblePoints(), (QList<QPointF>{{1000, 150}, {1010, 250}}));
    QCOMPARE(series.resource(QStringLiteral("memory GiB"))->visiblePoints().constLast(), QPointF(1010, 1));
    QCOMPARE(series.lastResources().time, 1010.0);
    // A sample says nothing of the run's progress: its last event stays the step's.
    QCOMPARE(series.info().lastTime, 990.0);
    series.clear();
    QVERIFY(series.resourceNames().isEmpty());
    QVERIFY(series.lastResources().isEmpty());
}

void TestResourceSample::jsonAndSummary()
{
    const ResourceSample sample = sampleAt(1000, 150, 512);
    QCOMPARE(resourceSummary(sample), QStringLiteral("GPU 80% 3.0/8.0 GiB (2) · CPU 150% · RSS 0.50 GiB · 1 task"));
    const QJsonObject json = resourceJson(sample);
    QCOMPARE(json.value(u"cpu_percent").toDouble(), 150.0);
    QCOMPARE(json.value(u"gpus").toArray().size(), 2);
    QCOMPARE(json.value(u"tasks").toArray().at(0).toObject().value(u"rss_mib").toDouble(), 512.0);
    QVERIFY(resourceSummary(ResourceSample{}).isEmpty());
    QVERIFY(resourceJson(ResourceSample{}).value(u"cpu_percent").isNull());
}

TORCHDECK_TEST_MAIN(TestResourceSample)
#include "tst_resourcesample.moc"
