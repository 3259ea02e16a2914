// The general reader, one line at a time: what each spelling of named numbers gives (docs/metrics-schema.md).
#include "core/metrics/generalreader.h"
#include "core/metrics/logprefix.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestGeneralReader : public QObject {
    Q_OBJECT
private slots:
    void lines_data();
    void lines();
    void prefixes_data();
    void prefixes();
};

namespace {
QString text(double v)
{
    return MetricEvent::has(v) ? QString::number(v, 'g', 6) : QStringLiteral("-");
}

// The reading as "epoch step epoch_step/steps | loss val_loss val_acc lr seconds | extras".
QString describe(const LineReading &r)
{
    QStringList extras;
    for (const NamedValue &v : r.extras + r.trainExtras)
        extras.append(v.name + u'=' + text(v.value));
    return QStringLiteral("%1 %2 %3/%4 | %5 %6 %7 %8 %9 | %10")
        .arg(text(r.epoch), QString::number(r.step), QString::number(r.epochStep), QString::number(r.stepsPerEpoch),
             text(MetricEvent::has(r.epochLoss) ? r.epochLoss : r.loss), text(r.valLoss), text(r.valAccuracy),
             text(r.lr), text(r.seconds))
        .arg(extras.join(u' '));
}
} // namespace

void TestGeneralReader::lines_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("reading");
    QTest::addRow("name = value") << "epoch: 3/10, loss = 0.042, val_loss = 0.05"
                                  << "3 -1 -1/-1 | 0.042 0.05 - - - | ";
    QTest::addRow("name=value") << "Epoch=0, train_loss=0.11, val_loss=0.105"
                                << "0 -1 -1/-1 | 0.11 0.105 - - - | ";
    QTest::addRow("times") << "Training time: 12.300s, Validation time: 1.200s"
                           << "- -1 -1/-1 | - - - - 13.5 | ";
    QTest::addRow("dict") << "{'loss': 1.648, 'grad_norm': 1.37, 'learning_rate': 4.2e-05, 'epoch': 0.5}"
                          << "0.5 -1 -1/-1 | 1.648 - - 4.2e-05 - | grad_norm=1.37";
    QTest::addRow("eval dict") << "{'eval_loss': 0.9, 'eval_accuracy': 0.8, 'epoch': 1.0}"
                               << "1 -1 -1/-1 | - 0.9 0.8 - - | ";
    QTest::addRow("json") << R"({"step": 10, "loss": 2.5})"
                          << "- 10 -1/-1 | 2.5 - - - - | ";
    QTest::addRow("mnist train") << "Train Epoch: 1 [6400/60000 (11%)]\tLoss: 1.967640"
                                 << "1 -1 6400/60000 | 1.96764 - - - - | ";
    QTest::addRow("mnist test") << "Test set: Average loss: 0.1104, Accuracy: 9740/10000 (97%)"
                                << "- -1 -1/-1 | - 0.1104 0.974 - - | ";
    QTest::addRow("imagenet")
        << "Epoch: [3][100/391]\tTime  0.123 ( 0.150)\tLoss 2.3456e+00 (2.4567e+00)\tAcc@1  45.31 ( 40.12)"
        << "3 -1 100/391 | 2.3456 - - - - | Acc@1=45.31 Time=0.123";
    QTest::addRow("imagenet summary") << " * Acc@1 75.000 Acc@5 92.000"
                                      << "- -1 -1/-1 | - - 75 - - | Acc@5=92";
    QTest::addRow("lightning bar") << "Epoch 2:  45%|####   | 420/938 [00:05<00:06, 80.1it/s, v_num=0, train_loss=0.31]"
                                   << "2 -1 420/938 | 0.31 - - - - | ";
    QTest::addRow("keras") << "469/469 [==============================] - 3s 6ms/step - loss: 0.36 - val_loss: 0.37"
                           << "- -1 469/469 | 0.36 0.37 - - - | ";
    QTest::addRow("context") << "Epoch 3/10"
                             << "3 -1 -1/-1 | - - - - - | ";
    QTest::addRow("time taken") << "Time taken for epoch 3 is 20.5 sec"
                                << "3 -1 -1/-1 | - - - - 20.5 | ";
    QTest::addRow("fairseq") << "epoch 001:    100 / 200 loss=8.000, ppl=9.19, num_updates=100, lr=0.0005"
                             << "1 100 -1/-1 | 8 - - 0.0005 - | ppl=9.19";
    QTest::addRow("fairseq valid")
        << "valid | epoch 001 | valid on 'valid' subset | loss 5.000 | ppl 8.57 | num_updates 200"
        << "1 200 -1/-1 | - 5 - - - | ppl=8.57";
    QTest::addRow("deepspeed") << "step=200, skipped=0, lr=[0.001], mom=[(0.9, 0.999)]"
                               << "- 200 -1/-1 | - - - 0.001 - | ";
    QTest::addRow("cifar tutorial") << "[1,  2000] loss: 2.235"
                                    << "1 -1 2000/-1 | 2.235 - - - - | ";
    QTest::addRow("torchtune") << "Step 10 | loss:2.345 lr:2e-05 tokens_per_second_per_gpu:1000.5"
                               << "- 10 -1/-1 | 2.345 - - 2e-05 - | tokens_per_second_per_gpu=1000.5";
    QTest::addRow("tensor") << "epoch 2 loss: tensor(0.5432, grad_fn=<NllLossBackward0>)"
                            << "2 -1 -1/-1 | 0.5432 - - - - | ";
    QTest::addRow("one-element tensor") << "epoch 2 loss: tensor([0.5432], device='cuda:0')"
                                        << "2 -1 -1/-1 | 0.5432 - - - - | ";
    QTest::addRow("numpy scalars") << "epoch 3 val_loss: np.float32(0.25), val_acc: np.float64(0.75), step np.int64(12)"
                                   << "3 12 -1/-1 | - 0.25 0.75 - - | ";
    QTest::addRow("thousands") << "step 1,200 samples: 1,536,000.5 lr: 0.001, loss 0.5,"
                               << "- 1200 -1/-1 | 0.5 - - 0.001 - | samples=1.536e+06";
}

void TestGeneralReader::lines()
{
    QFETCH(QString, line);
    QFETCH(QString, reading);
    const std::optional<LineReading> r = generalReading(line);
    QVERIFY(r.has_value());
    QCOMPARE(describe(*r), reading);
}

void TestGeneralReader::prefixes_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("own"); // "<other rank>" for another rank's line
    QTest::addRow("srun label") << "0: loss=1"
                                << "loss=1";
    QTest::addRow("other rank") << "3: loss=1"
                                << "<other rank>";
    QTest::addRow("torchrun tee") << "[rank1]:loss=1"
                                  << "<other rank>";
    QTest::addRow("python logging") << "INFO:root:step=50 train_loss=0.1"
                                    << "step=50 train_loss=0.1";
    QTest::addRow("fairseq") << "2024-11-26 07:10:05 | INFO | train | epoch 001 | loss 4.5"
                             << "train | epoch 001 | loss 4.5";
    QTest::addRow("named timestamp") << "trainer| 11-26 07:10:05 loss: 0.5"
                                     << "loss: 0.5";
    QTest::addRow("deepspeed") << "[2024-11-26 07:10:05,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=10"
                               << "[logging.py:96:log_dist] [Rank 0] step=10";
}

void TestGeneralReader::prefixes()
{
    QFETCH(QString, line);
    QFETCH(QString, own);
    const std::optional<QStringView> rest = ownLogText(line);
    QCOMPARE(rest ? rest->toString() : QStringLiteral("<other rank>"), own);
}

TORCHDECK_TEST_MAIN(TestGeneralReader)
#include "tst_generalreader.moc"
