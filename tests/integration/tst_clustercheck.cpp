// "Check cluster" against the sandbox: every check passes there, and a broken setting fails its own line
// only.
#include "remote/clustercheck.h"
#include "remote/connection.h"
#include "sandboxconnection.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::remote;

class TestClusterCheck : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void sandboxPassesEveryCheck_data();
    void sandboxPassesEveryCheck();
    void unwritableWorkDirectoryFailsItsLineOnly();
    void reachesAreTriedFromTheLoginNode();

private:
    QList<CheckItem> check(const ClusterCheckSettings &settings);
    std::unique_ptr<Connection> m_connection;
};

void TestClusterCheck::initTestCase()
{
    if (!testing::sandboxRunning())
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    QString error;
    m_connection = testing::openSandboxConnection(&error);
    QVERIFY2(m_connection, qPrintable(error));
}

QList<CheckItem> TestClusterCheck::check(const ClusterCheckSettings &settings)
{
    ClusterCheck check(m_connection.get(), settings);
    QSignalSpy finished(&check, &ClusterCheck::finished);
    QSignalSpy items(&check, &ClusterCheck::itemChecked);
    check.start();
    if (!finished.wait(60000))
        return {};
    const auto result = finished.first().first().value<QList<CheckItem>>();
    if (items.count() != result.size())
        return {};
    return result;
}

void TestClusterCheck::sandboxPassesEveryCheck_data()
{
    QTest::addColumn<int>("scheduler");
    QTest::addColumn<QString>("commands");
    QTest::addRow("slurm") << int(SchedulerKind::Slurm) << QStringLiteral("sbatch, squeue, scancel found");
    QTest::addRow("pbs wrappers") << int(SchedulerKind::Pbs) << QStringLiteral("qsub, qstat, qdel found");
}

void TestClusterCheck::sandboxPassesEveryCheck()
{
    QFETCH(int, scheduler);
    QFETCH(QString, commands);
    ClusterCheckSettings settings;
    settings.scheduler = SchedulerKind(scheduler);
    settings.workDirectory = QStringLiteral("~/.torchdeck-check-test");
    const QList<CheckItem> items = check(settings);
    const bool slurm = settings.scheduler == SchedulerKind::Slurm;
    QCOMPARE(items.size(), slurm ? 11 : 9);
    for (const CheckItem &item : items)
        QVERIFY2(item.ok, qPrintable(item.name + QStringLiteral(": ") + item.detail));
    // The sandbox's Python: Debian's own PyTorch, whose torchrun the check flags on Python 3.11.
    QCOMPARE(items.at(6).name, QStringLiteral("PyTorch launcher"));
    QVERIFY2(items.at(6).detail.contains(QStringLiteral("PyTorch ")), qPrintable(items.at(6).detail));
    QCOMPARE(items.at(0).name, QStringLiteral("Shell quoting"));
    QCOMPARE(items.at(2).detail, commands);
    QVERIFY2(items.at(3).detail.contains(QStringLiteral("cmake version")), qPrintable(items.at(3).detail));
    QVERIFY2(items.at(4).detail.contains(QStringLiteral("TorchConfig.cmake")), qPrintable(items.at(4).detail));
    QVERIFY(items.at(5).detail.endsWith(QStringLiteral("/.torchdeck-check-test is writable")));
    // The sandbox keeps no accounting database and sets no quota: both lines say so, neither fails.
    QCOMPARE(items.at(7).name, QStringLiteral("Fair share"));
    QCOMPARE(items.at(8).name, QStringLiteral("Quota"));
    QVERIFY2(!items.at(7).detail.isEmpty() && !items.at(8).detail.isEmpty(),
             qPrintable(items.at(7).detail + u'\n' + items.at(8).detail));
    if (slurm) { // the partitions, read with sinfo
        QCOMPARE(items.at(9).name, QStringLiteral("Partitions"));
        QVERIFY(!items.at(9).warning);
        QVERIFY2(items.at(9).detail.startsWith(QStringLiteral("debug (default): no time limit")),
                 qPrintable(items.at(9).detail));
        // and the accounts, none without an accounting database: said, and passed
        QCOMPARE(items.at(10).name, QStringLiteral("Accounts"));
        QVERIFY2(items.at(10).detail.startsWith(QStringLiteral("sacctmgr lists none for you")),
                 qPrintable(items.at(10).detail));
    }
}

void TestClusterCheck::unwritableWorkDirectoryFailsItsLineOnly()
{
    ClusterCheckSettings settings;
    settings.workDirectory = QStringLiteral("/proc/torchdeck");
    const QList<CheckItem> items = check(settings);
    QCOMPARE(items.size(), 11);
    QVERIFY(!items.at(5).ok);
    QVERIFY2(items.at(5).detail.startsWith(QStringLiteral("/proc/torchdeck is not writable: ")),
             qPrintable(items.at(5).detail));
    for (int i : {0, 1, 2, 3, 4, 6, 7, 8, 9, 10})
        QVERIFY(items.at(i).ok);
}

// The profile's reaches, each tried with ssh from the login node: the sandbox reaches itself through the suite's ssh
// config; a port nobody listens on is a warning with ssh's reason, not a failure (copies go through this machine); a
// line that is no reach fails its own line.
void TestClusterCheck::reachesAreTriedFromTheLoginNode()
{
    ClusterCheckSettings settings;
    settings.workDirectory = QStringLiteral("~/.torchdeck-check-test");
    const QString config = qEnvironmentVariable("TORCHDECK_SSH_CONFIG");
    QVERIFY(!config.isEmpty());
    settings.reach = {QStringLiteral("itself=-F %1 torchdeck-sandbox").arg(config),
                      QStringLiteral("nowhere=-p 1 127.0.0.1"), QStringLiteral("a line edited by hand")};
    const QList<CheckItem> items = check(settings);
    QCOMPARE(items.size(), 14);
    const CheckItem &itself = items.at(11);
    QCOMPARE(itself.name, QStringLiteral("Reaches itself"));
    QVERIFY2(itself.ok && !itself.warning, qPrintable(itself.detail));
    QCOMPARE(
        itself.detail,
        QStringLiteral("with `ssh -F %1 torchdeck-sandbox`: checkpoints and code go straight from itself").arg(config));
    const CheckItem &nowhere = items.at(12);
    QCOMPARE(nowhere.name, QStringLiteral("Reaches nowhere"));
    QVERIFY2(nowhere.ok && nowhere.warning, qPrintable(nowhere.detail));
    QVERIFY2(
        nowhere.detail.startsWith(QStringLiteral("not with `ssh -p 1 127.0.0.1` (ssh: connect to host 127.0.0.1 port "
                                                 "1: Connection refused): copies from nowhere go through")),
        qPrintable(nowhere.detail));
    QCOMPARE(items.at(13).name, QStringLiteral("Reach")); // not tried: it names no cluster
    QVERIFY(!items.at(13).ok);
    QVERIFY2(items.at(13).detail.startsWith(QStringLiteral("\"a line edited by hand\" is not CLUSTER=SSH ARGUMENTS")),
             qPrintable(items.at(13).detail));
}

QTEST_GUILESS_MAIN(TestClusterCheck)
#include "tst_clustercheck.moc"
