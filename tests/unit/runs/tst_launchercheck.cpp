// The cluster check's "PyTorch launcher" line (core/runs/launchercheck.h), from what its probe prints.
#include "core/runs/launchercheck.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestLauncherCheck : public QObject {
    Q_OBJECT
private slots:
    void pyTorchLauncherVerdicts_data();
    void pyTorchLauncherVerdicts();
    void probeRunsAfterTheModules();
};

void TestLauncherCheck::pyTorchLauncherVerdicts_data()
{
    QTest::addColumn<QString>("probe");
    QTest::addColumn<bool>("warning");
    QTest::addColumn<QString>("says");
    QTest::addRow("current") << "torchrun /opt/torch/bin/torchrun\npython 3.12.1\ntorch 2.5.1+cu124\nbroken False\n"
                             << false
                             << "torchrun at /opt/torch/bin/torchrun, PyTorch 2.5.1+cu124 on Python 3.12.1; "
                                "generated lines use --nnodes, --nproc_per_node, --rdzv_backend";
    QTest::addRow("1.9 module") << "torchrun none\npython 3.8.10\ntorch 1.9.0\nbroken False\n"
                                << false << "no torchrun on PATH: python3 -m torch.distributed.run, PyTorch 1.9.0";
    QTest::addRow("debian 12") << "torchrun /usr/bin/torchrun\npython 3.11.2\ntorch 1.13.0a0+git7c98e70\nbroken True\n"
                               << true << "its torchrun cannot start any job";
    QTest::addRow("1.8") << "torchrun none\npython 3.8.10\ntorch 1.8.1\nbroken unknown\n"
                         << true << "has no torchrun (it came with 1.9)";
    QTest::addRow("no torch") << "torchrun none\npython 3.11.2\ntorch none No module named 'torch'\n"
                              << true << "no PyTorch for python3 after the modules";
    QTest::addRow("no python") << "torchrun none\nbash: python3: command not found\n"
                               << true << "could not run python3: ";
}

void TestLauncherCheck::pyTorchLauncherVerdicts()
{
    QFETCH(QString, probe);
    QFETCH(bool, warning);
    QFETCH(QString, says);
    const CheckItem item = pyTorchLauncherItem(probe);
    QVERIFY(item.ok); // the bundled trainer does not need PyTorch for Python
    QCOMPARE(item.warning, warning);
    QVERIFY2(item.detail.contains(says), qPrintable(item.detail));
}

void TestLauncherCheck::probeRunsAfterTheModules()
{
    const QString script = pyTorchLauncherProbeScript({QStringLiteral("module load pytorch/2.5")});
    QVERIFY(script.startsWith(QStringLiteral("module load pytorch/2.5\n")));
    QVERIFY(script.contains(QStringLiteral("echo \"torchrun ${t:-none}\"")));
}

TORCHDECK_TEST_MAIN(TestLauncherCheck)
#include "tst_launchercheck.moc"
