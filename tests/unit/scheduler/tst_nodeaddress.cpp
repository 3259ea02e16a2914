#include "core/scheduler/nodeaddress.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

Q_DECLARE_METATYPE(torchdeck::SchedulerKind)

class TestNodeAddress : public QObject {
    Q_OBJECT
private slots:
    void firstNodeOfAList_data();
    void firstNodeOfAList();
    void slurmAsksScontrol();
    void othersNeedNoCommand();
    void nodeAddrOfScontrol();
    void noNodeAddr_data();
    void noNodeAddr();
};

void TestNodeAddress::firstNodeOfAList_data()
{
    QTest::addColumn<SchedulerKind>("kind");
    QTest::addColumn<QString>("nodes");
    QTest::addColumn<QString>("first");
    const auto slurm = SchedulerKind::Slurm;
    QTest::addRow("one node") << slurm << QStringLiteral("node1") << QStringLiteral("node1");
    QTest::addRow("a range") << slurm << QStringLiteral("node[1-2]") << QStringLiteral("node1");
    QTest::addRow("padded") << slurm << QStringLiteral("gpu[03-05,9]") << QStringLiteral("gpu03");
    QTest::addRow("a list in brackets") << slurm << QStringLiteral("n[7,3]") << QStringLiteral("n7");
    QTest::addRow("two brackets") << slurm << QStringLiteral("rack[1-2]-n[7-8]") << QStringLiteral("rack1-n7");
    QTest::addRow("a suffix") << slurm << QStringLiteral("c[10-11]x,d1") << QStringLiteral("c10x");
    QTest::addRow("comma list") << slurm << QStringLiteral("a1,b[2-3]") << QStringLiteral("a1");
    QTest::addRow("pending") << slurm << QStringLiteral("") << QString();
    QTest::addRow("null") << slurm << QStringLiteral("(null)") << QString();
    QTest::addRow("none assigned") << slurm << QStringLiteral("None assigned") << QString();
    QTest::addRow("unclosed") << slurm << QStringLiteral("node[1-2") << QString();
    QTest::addRow("stray bracket") << slurm << QStringLiteral("node]1") << QString();
    QTest::addRow("pbs hosts") << SchedulerKind::Pbs << QStringLiteral("cn07,cn08") << QStringLiteral("cn07");
    QTest::addRow("pbs none") << SchedulerKind::Pbs << QStringLiteral("") << QString();
    QTest::addRow("local") << SchedulerKind::Local << QString() << QStringLiteral("localhost");
}

void TestNodeAddress::firstNodeOfAList()
{
    QFETCH(SchedulerKind, kind);
    QFETCH(QString, nodes);
    QFETCH(QString, first);
    QCOMPARE(firstNode(kind, nodes), first);
}

void TestNodeAddress::slurmAsksScontrol()
{
    QCOMPARE(nodeAddressCommand(SchedulerKind::Slurm, QStringLiteral("node1")),
             QStringList({QStringLiteral("scontrol"), QStringLiteral("--oneliner"), QStringLiteral("show"),
                          QStringLiteral("node"), QStringLiteral("node1")}));
    QVERIFY(nodeAddressCommand(SchedulerKind::Slurm, QString()).isEmpty());
}

void TestNodeAddress::othersNeedNoCommand()
{
    QVERIFY(nodeAddressCommand(SchedulerKind::Pbs, QStringLiteral("cn07")).isEmpty());
    QVERIFY(nodeAddressCommand(SchedulerKind::Local, QStringLiteral("localhost")).isEmpty());
}

void TestNodeAddress::nodeAddrOfScontrol()
{
    // The sandbox's node: named node1, reached at 127.0.0.1 (its name resolves nowhere).
    const QByteArray output = fixture(QStringLiteral("slurm-scontrol-show-node.txt"));
    QVERIFY(!output.isEmpty());
    QCOMPARE(parseSlurmNodeAddress(output), QStringLiteral("127.0.0.1"));
}

void TestNodeAddress::noNodeAddr_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addRow("empty") << QByteArray();
    QTest::addRow("unknown node") << QByteArray("Node nosuch not found\n");
    QTest::addRow("a longer key") << QByteArray("NodeName=n1 XNodeAddr=10.0.0.1 State=IDLE\n");
    QTest::addRow("no value") << QByteArray("NodeName=n1 NodeAddr= State=IDLE\n");
}

void TestNodeAddress::noNodeAddr()
{
    QFETCH(QByteArray, output);
    QCOMPARE(parseSlurmNodeAddress(output), QString());
}

TORCHDECK_TEST_MAIN(TestNodeAddress)
#include "tst_nodeaddress.moc"
