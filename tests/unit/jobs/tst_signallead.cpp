// The warning signal's default lead: a fraction of short wall times (issue 26).
#include "core/jobs/signallead.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestSignalLead : public QObject {
    Q_OBJECT
private slots:
    void defaults_data();
    void defaults();
};

void TestSignalLead::defaults_data()
{
    QTest::addColumn<qint64>("wallTime");
    QTest::addColumn<bool>("perNodeLauncher");
    QTest::addColumn<int>("lead");
    QTest::addColumn<QString>("reason");
    QTest::addRow("partition default") << 0LL << false << 300 << QString();
    QTest::addRow("five minutes") << 300LL << false << 60
                                  << QStringLiteral("60 s by default: a fifth of the wall time");
    QTest::addRow("two minutes") << 120LL << false << 24 << QStringLiteral("24 s by default: a fifth of the wall time");
    QTest::addRow("25 minutes") << 1500LL << false << 300 << QString();
    QTest::addRow("a day") << 86400LL << false << 300 << QString();
    QTest::addRow("torchrun, two minutes")
        << 120LL << true << 40 << QStringLiteral("40 s by default: over the 30 s torchrun gives its workers");
    QTest::addRow("torchrun, ten minutes")
        << 600LL << true << 120 << QStringLiteral("120 s by default: a fifth of the wall time");
}

void TestSignalLead::defaults()
{
    QFETCH(qint64, wallTime);
    QFETCH(bool, perNodeLauncher);
    QFETCH(int, lead);
    QFETCH(QString, reason);
    JobSpec spec;
    spec.wallTimeSeconds = wallTime;
    if (perNodeLauncher) {
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = QStringLiteral("python3 train.py");
        spec.launch = LaunchMethod::SrunPerNodeLauncher;
    }
    QCOMPARE(customUnderPerNodeLauncher(spec), perNodeLauncher);
    QCOMPARE(defaultSignalLeadSeconds(spec), lead);
    QCOMPARE(signalLeadDefaultReason(spec), reason);
}

TORCHDECK_TEST_MAIN(TestSignalLead)
#include "tst_signallead.moc"
