// Every log of tests/data/logs/ read as the tracker reads a job's log (patterns, general reader, rank filter,
// RunSeries), against tests/data/logs/expected.tsv: the plotted steps, epochs and values of each file. The
// sandbox test (anyjob.corpus) checks the same table through a real job.
#include "core/metrics/logmetrics.h"
#include "core/metrics/metricsreader.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace torchdeck;

namespace {

QString points(const MetricSeries &series)
{
    QStringList out;
    for (const QPointF &p : series.visiblePoints())
        out.append(QString::number(p.x()) + u':' + QString::number(p.y(), 'g', 4));
    return out.isEmpty() ? QStringLiteral("-") : out.join(u' ');
}

QString stepSummary(const MetricSeries &series)
{
    const QList<QPointF> p = series.visiblePoints();
    if (p.isEmpty())
        return QStringLiteral("-");
    const auto point = [](QPointF q) -> QString {
        return QString::number(q.x()) + u':' + QString::number(q.y(), 'g', 4);
    };
    return QString::number(p.size()) + u' ' + point(p.first()) + u' ' + point(p.last());
}

} // namespace

class TestLogCorpus : public QObject {
    Q_OBJECT
private slots:
    void everyFileIsListed();
    void plotted_data();
    void plotted();
};

void TestLogCorpus::everyFileIsListed()
{
    QFile table(QStringLiteral(TORCHDECK_TEST_DATA "/logs/expected.tsv"));
    QVERIFY(table.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(table.readAll());
    const QStringList files = QDir(QStringLiteral(TORCHDECK_TEST_DATA "/logs"))
                                  .entryList({QStringLiteral("*.log"), QStringLiteral("*.out")}, QDir::Files);
    QVERIFY(files.size() >= 17);
    for (const QString &file : files)
        QVERIFY2(text.contains(u'\n' + file + u'\t') || text.startsWith(file + u'\t'), qPrintable(file));
}

void TestLogCorpus::plotted_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected");
    QFile table(QStringLiteral(TORCHDECK_TEST_DATA "/logs/expected.tsv"));
    QVERIFY(table.open(QIODevice::ReadOnly));
    for (const QByteArray &line : table.readAll().split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        QStringList cells = QString::fromUtf8(line).split(u'\t');
        const QString file = cells.takeFirst();
        QTest::addRow("%s", qPrintable(file)) << file << cells;
    }
}

void TestLogCorpus::plotted()
{
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    QFile log(QStringLiteral(TORCHDECK_TEST_DATA "/logs/") + file);
    QVERIFY(log.open(QIODevice::ReadOnly));
    MetricsReader reader(MetricsReader::Format::LogPatterns);
    QList<MetricEvent> events = reader.feed(log.readAll());
    events += reader.finish();
    LogProgress progress;
    events = firstOfEachRank(events, 1.0, &progress);
    RunSeries series;
    for (MetricEvent &e : events)
        e.source = MetricSource::Log;
    series.apply(events);
    const QStringList actual{stepSummary(series.series(SeriesKind::TrainLoss)),
                             points(series.series(SeriesKind::EpochTrainLoss)),
                             points(series.series(SeriesKind::ValLoss)), points(series.series(SeriesKind::ValAccuracy)),
                             points(series.series(SeriesKind::EpochSeconds))};
    QCOMPARE(actual.join(u'\t'), expected.join(u'\t'));
}

TORCHDECK_TEST_MAIN(TestLogCorpus)
#include "tst_logcorpus.moc"
