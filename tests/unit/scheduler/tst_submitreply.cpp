#include "core/scheduler/submitreply.h"
#include "fixture.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::testing;

class TestSubmitReply : public QObject {
    Q_OBJECT
private slots:
    void capturedSbatch();
    void sbatchForms_data();
    void sbatchForms();
    void capturedQsub();
    void qsubForms_data();
    void qsubForms();
    void localPid();
};

void TestSubmitReply::capturedSbatch()
{
    const SubmitResult plain = parseSbatchReply(fixture(QStringLiteral("slurm-sbatch.txt")));
    QVERIFY2(plain.ok(), qPrintable(plain.error));
    QVERIFY(plain.jobId.toInt() > 0);
    const SubmitResult parsable = parseSbatchReply(fixture(QStringLiteral("slurm-sbatch-parsable.txt")));
    QVERIFY2(parsable.ok(), qPrintable(parsable.error));
    QVERIFY(parsable.jobId.toInt() > 0);
    QVERIFY(parsable.cluster.isEmpty());
}

void TestSubmitReply::sbatchForms_data()
{
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("cluster");
    QTest::addRow("parsable") << QByteArray("123\n") << QStringLiteral("123") << QString();
    QTest::addRow("parsable cluster") << QByteArray("123;narvi\n") << QStringLiteral("123") << QStringLiteral("narvi");
    QTest::addRow("plain") << QByteArray("Submitted batch job 77\n") << QStringLiteral("77") << QString();
    QTest::addRow("plain cluster") << QByteArray("Submitted batch job 77 on cluster c2\n") << QStringLiteral("77")
                                   << QStringLiteral("c2");
    QTest::addRow("banner first") << QByteArray("Welcome to the cluster!\nSubmitted batch job 9\n")
                                  << QStringLiteral("9") << QString();
    QTest::addRow("crlf") << QByteArray("55\r\n") << QStringLiteral("55") << QString();
    QTest::addRow("empty") << QByteArray() << QString() << QString();
    QTest::addRow("error text") << QByteArray("sbatch: error: Batch job submission failed\n") << QString() << QString();
    QTest::addRow("non-numeric") << QByteArray("abc\n") << QString() << QString();
    QTest::addRow("truncated") << QByteArray("Submitted batch") << QString() << QString();
}

void TestSubmitReply::sbatchForms()
{
    QFETCH(QByteArray, reply);
    QFETCH(QString, id);
    QFETCH(QString, cluster);
    const SubmitResult result = parseSbatchReply(reply);
    QCOMPARE(result.jobId, id);
    QCOMPARE(result.cluster, cluster);
    QCOMPARE(result.ok(), !id.isEmpty());
    if (!result.ok())
        QVERIFY(result.error.contains(QStringLiteral("sbatch")));
}

void TestSubmitReply::capturedQsub()
{
    const SubmitResult wrapper = parseQsubReply(fixture(QStringLiteral("torque-wrapper-qsub.txt")));
    QVERIFY2(wrapper.ok(), qPrintable(wrapper.error));
    QVERIFY(wrapper.jobId.toInt() > 0);
    const SubmitResult pro = parseQsubReply(fixture(QStringLiteral("pbspro-qsub.txt")));
    QCOMPARE(pro.jobId, QStringLiteral("1234.pbs01"));
}

void TestSubmitReply::qsubForms_data()
{
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QString>("id");
    QTest::addRow("torque wrapper") << QByteArray("33\n") << QStringLiteral("33");
    QTest::addRow("server") << QByteArray("1234.pbs01.example.org\n") << QStringLiteral("1234.pbs01.example.org");
    QTest::addRow("array") << QByteArray("1237[].pbs01\n") << QStringLiteral("1237[].pbs01");
    QTest::addRow("wrapper error") << QByteArray("There was an error running the Slurm sbatch command.\n") << QString();
    QTest::addRow("qsub error") << QByteArray("qsub: Unknown queue\n") << QString();
    QTest::addRow("empty") << QByteArray("\n\n") << QString();
}

void TestSubmitReply::qsubForms()
{
    QFETCH(QByteArray, reply);
    QFETCH(QString, id);
    const SubmitResult result = parseQsubReply(reply);
    QCOMPARE(result.jobId, id);
    QCOMPARE(result.ok(), !id.isEmpty());
}

void TestSubmitReply::localPid()
{
    QCOMPARE(parseLocalReply("4242\n").jobId, QStringLiteral("4242"));
    QVERIFY(!parseLocalReply("").ok());
    QVERIFY(!parseLocalReply("mkdir: cannot create directory\n").ok());
    QVERIFY(!parseLocalReply("-1\n").ok());
}

TORCHDECK_TEST_MAIN(TestSubmitReply)
#include "tst_submitreply.moc"
