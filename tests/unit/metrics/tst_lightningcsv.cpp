#include "core/metrics/lightningcsv.h"
#include "metricevents.h"
#include "testmain.h"

#include <QFile>
#include <QTest>

using namespace torchdeck;
using namespace Qt::StringLiterals;

class TestLightningCsv : public QObject {
    Q_OBJECT
private slots:
    void rows_data();
    void rows();
    void fixtureFile();
    void rewriteWithNewColumn();
    void tornLastRow();
    void replacedFile();
    void malformedCells();
};

void TestLightningCsv::rows_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QStringList>("events");
    QTest::addRow("step row, epoch + 1") << QByteArray("epoch,step,train_loss_step\n0,49,0.5\n")
                                         << QStringList{u"Step epoch=1 step=49 loss=0.5"_s};
    QTest::addRow("lr monitor row") << QByteArray("epoch,lr-Adam,step\n,0.001,50\n")
                                    << QStringList{u"Step step=50 lr=0.001"_s};
    QTest::addRow("val row") << QByteArray("epoch,step,val_loss,val_acc,val_f1\n2,299,0.4,0.9,0.7\n")
                             << QStringList{u"Epoch epoch=3 step=299 val_loss=0.4 val_acc=0.9 val_f1=0.7"_s};
    QTest::addRow("_epoch column") << QByteArray("epoch,step,train_acc_epoch\n0,99,0.75\n")
                                   << QStringList{u"Epoch epoch=1 step=99 train_acc_epoch=0.75"_s};
    QTest::addRow("step and epoch values")
        << QByteArray("epoch,step,train_loss_step,grad_norm,train_loss_epoch\n0,9,0.5,2,0.6\n")
        << QStringList{u"Step epoch=1 step=9 loss=0.5"_s, u"Epoch epoch=1 step=9 loss=0.6 grad_norm=2"_s};
    QTest::addRow("positions only") << QByteArray("epoch,step,val_loss\n0,9,\n") << QStringList{};
    QTest::addRow("quoting") << QByteArray("epoch,step,\"f1,macro\",\"say \"\"hi\"\"\",\"lr-Adam\"\n"
                                           "0,\"3\",\"0.5\",1,\"1e-3\"\n")
                             << QStringList{u"Step epoch=1 step=3 lr=0.001 f1,macro=0.5 say \"hi\"=1"_s};
    QTest::addRow("newline in quotes") << QByteArray("step,\"a\nb\"\n1,2\n") << QStringList{u"Step step=1 a\nb=2"_s};
    QTest::addRow("CRLF, blank line") << QByteArray("step,loss\r\n1,0.5\r\n\r\n2,0.25\r\n")
                                      << QStringList{u"Step step=1 loss=0.5"_s, u"Step step=2 loss=0.25"_s};
    QTest::addRow("short and long rows") << QByteArray("step,loss,lr\n1,0.5\n2,0.25,0.1,9\n")
                                         << QStringList{u"Step step=1 loss=0.5"_s, u"Step step=2 loss=0.25 lr=0.1"_s};
    QTest::addRow("nan and inf") << QByteArray("step,loss,grad_norm\n1,nan,inf\n")
                                 << QStringList{u"Step step=1 grad_norm=inf"_s};
    QTest::addRow("byte order mark") << QByteArray("\xEF\xBB\xBFstep,loss\n1,0.5\n")
                                     << QStringList{u"Step step=1 loss=0.5"_s};
    QTest::addRow("header only") << QByteArray("epoch,step\n") << QStringList{};
    QTest::addRow("empty") << QByteArray() << QStringList{};
}

void TestLightningCsv::rows()
{
    QFETCH(QByteArray, file);
    QFETCH(QStringList, events);
    LightningCsvReader reader;
    const QList<MetricEvent> read = reader.read(file, 0);
    QCOMPARE(testing::describeEvents(read), events);
    for (const MetricEvent &e : read)
        QVERIFY(std::isnan(e.time)); // the caller stamps it
    QCOMPARE(reader.malformed(), 0);
}

void TestLightningCsv::fixtureFile()
{
    QFile file(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/lightning-metrics.csv"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    LightningCsvReader reader;
    const QStringList events = testing::describeEvents(reader.read(file.readAll(), 0));
    QCOMPARE(reader.rows(), 12);
    QCOMPARE(events.size(), 12);
    QCOMPARE(events[0], u"Step step=0 lr=0.001"_s);
    QCOMPARE(events[1], u"Step epoch=1 step=49 loss=0.693147"_s);
    QCOMPARE(events[4], u"Epoch epoch=1 step=99 val_loss=0.487403 val_acc=0.8125"_s);
    QCOMPARE(events[5], u"Epoch epoch=1 step=99 loss=0.5712"_s);
    QCOMPARE(events[11], u"Epoch epoch=2 step=199 loss=0.380718"_s);
}

void TestLightningCsv::rewriteWithNewColumn()
{
    const QByteArray before("epoch,step,train_loss_step\n0,9,0.9\n0,19,0.8\n0,29,0.7\n");
    // The logger rewrites the file with the new header and every row so far, then appends.
    const QByteArray after("epoch,step,train_loss_step,val_loss\n0,9,0.9,\n0,19,0.8,\n0,29,0.7,\n0,29,,0.65\n"
                           "1,39,0.6,\n");
    LightningCsvReader reader;
    QCOMPARE(reader.read(before, 0).size(), 3);
    QCOMPARE(reader.rows(), 3);
    QCOMPARE(testing::describeEvents(reader.read(after, reader.rows())),
             (QStringList{u"Epoch epoch=1 step=29 val_loss=0.65"_s, u"Step epoch=2 step=39 loss=0.6"_s}));
    QCOMPARE(reader.rows(), 5);
    QVERIFY(reader.read(after, reader.rows()).isEmpty());
    QCOMPARE(reader.rows(), 5);
}

void TestLightningCsv::tornLastRow()
{
    const QByteArray whole("epoch,step,train_loss_step\n0,9,0.9\n0,19,0.8\n");
    LightningCsvReader reader;
    QCOMPARE(reader.read(whole.chopped(3), 0).size(), 1); // "0,19,0" without its newline
    QCOMPARE(reader.rows(), 1);
    QCOMPARE(testing::describeEvents(reader.read(whole, reader.rows())),
             QStringList{u"Step epoch=1 step=19 loss=0.8"_s});
    QCOMPARE(reader.rows(), 2);
    // A torn quoted cell holding a newline is no row either.
    QCOMPARE(reader.read(whole + "1,\"29\n", 2).size(), 0);
    QCOMPARE(reader.rows(), 2);
    QCOMPARE(reader.read(QByteArray("epoch,st"), 0).size(), 0); // a torn header
    QCOMPARE(reader.rows(), 0);
}

void TestLightningCsv::replacedFile()
{
    LightningCsvReader reader;
    QVERIFY(reader.read("step,loss\n1,0.5\n", 5).isEmpty());
    QCOMPARE(reader.rows(), 1); // fewer than the caller had: a new file, to read from row 0
}

void TestLightningCsv::malformedCells()
{
    LightningCsvReader reader;
    const QByteArray file("epoch,step,train_loss_step,grad_norm\n0,1,tensor(0.5),2\nx,2,0.4,\n");
    QCOMPARE(testing::describeEvents(reader.read(file, 0)),
             (QStringList{u"Step epoch=1 step=1 grad_norm=2"_s, u"Step step=2 loss=0.4"_s}));
    QCOMPARE(reader.malformed(), 2);
    reader.read(file, 2); // rows read before are not counted again
    QCOMPARE(reader.malformed(), 2);
}

TORCHDECK_TEST_MAIN(TestLightningCsv)
#include "tst_lightningcsv.moc"
