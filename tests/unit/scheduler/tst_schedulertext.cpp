#include "core/scheduler/schedulertext.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;
using namespace torchdeck::schedulertext;

class TestSchedulerText : public QObject {
    Q_OBJECT
private slots:
    void slurmDurations_data();
    void slurmDurations();
    void pbsDurations_data();
    void pbsDurations();
    void times();
    void exitCodes();
    void jobIds_data();
    void jobIds();
    void linesKeepTheirNumbers();
};

void TestSchedulerText::slurmDurations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds");
    QTest::addRow("minutes") << QStringLiteral("1") << qint64(60);
    QTest::addRow("minutes:seconds") << QStringLiteral("1:07") << qint64(67);
    QTest::addRow("h:m:s") << QStringLiteral("00:01:14") << qint64(74);
    QTest::addRow("days-hours") << QStringLiteral("2-3") << qint64(2 * 86400 + 3 * 3600);
    QTest::addRow("days-h:m:s") << QStringLiteral("1-00:00:05") << qint64(86405);
    QTest::addRow("unlimited") << QStringLiteral("UNLIMITED") << qint64(0);
    QTest::addRow("infinite") << QStringLiteral("INFINITE") << qint64(0);
    QTest::addRow("empty") << QString() << qint64(-1);
    QTest::addRow("invalid") << QStringLiteral("INVALID") << qint64(-1);
    QTest::addRow("too many parts") << QStringLiteral("1:2:3:4") << qint64(-1);
    QTest::addRow("negative") << QStringLiteral("-5") << qint64(-1);
    QTest::addRow("letters") << QStringLiteral("1:x") << qint64(-1);
}

void TestSchedulerText::slurmDurations()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    QCOMPARE(slurmDuration(text), seconds);
}

void TestSchedulerText::pbsDurations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds");
    QTest::addRow("h:m:s") << QStringLiteral("04:00:00") << qint64(14400);
    QTest::addRow("long hours") << QStringLiteral("100:00:01") << qint64(360001);
    QTest::addRow("seconds") << QStringLiteral("3600") << qint64(3600);
    QTest::addRow("m:s") << QStringLiteral("10:00") << qint64(-1);
    QTest::addRow("garbage") << QStringLiteral("soon") << qint64(-1);
}

void TestSchedulerText::pbsDurations()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    QCOMPARE(pbsDuration(text), seconds);
}

void TestSchedulerText::times()
{
    QCOMPARE(slurmTime(u"2026-11-22T18:21:47"), QDateTime(QDate(2026, 11, 22), QTime(18, 21, 47)));
    QVERIFY(!slurmTime(u"Unknown").isValid());
    QVERIFY(!slurmTime(u"N/A").isValid());
    QVERIFY(!slurmTime(u"NONE").isValid());
    QVERIFY(!slurmTime(u"2026-13-45T99:00:00").isValid());
    QCOMPARE(pbsTime(u"Wed Apr 14 23:34:17 2021"), QDateTime(QDate(2021, 4, 14), QTime(23, 34, 17)));
    QCOMPARE(pbsTime(u"Tue Oct  4 21:23:20 2022"), QDateTime(QDate(2022, 10, 4), QTime(21, 23, 20)));
    QVERIFY(!pbsTime(u"Wed Foo 14 23:34:17 2021").isValid());
    QVERIFY(!pbsTime(u"Wed Apr 31 23:34:17 2021").isValid());
    QVERIFY(!pbsTime(u"").isValid());
}

void TestSchedulerText::exitCodes()
{
    QCOMPARE(slurmExitCode(u"3:0").code, 3);
    QCOMPARE(slurmExitCode(u"0:9").signal, 9);
    QCOMPARE(slurmExitCode(u"0:9").code, 0);
    QCOMPARE(slurmExitCode(u"3").code, -1);
    QCOMPARE(slurmExitCode(u"x:y").code, -1);
    QCOMPARE(slurmExitCode(u"300:0").code, -1);
    QCOMPARE(waitStatus(768).code, 3);
    QCOMPARE(waitStatus(768).signal, 0);
    QCOMPARE(waitStatus(15).signal, 15);
    QCOMPARE(waitStatus(36608).code, 143);
    QCOMPARE(waitStatus(-1).code, -1);
}

void TestSchedulerText::jobIds_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("slurm");
    QTest::addColumn<bool>("pbs");
    QTest::addRow("number") << QStringLiteral("123") << true << true;
    QTest::addRow("array task") << QStringLiteral("123_4") << true << false;
    QTest::addRow("array pending") << QStringLiteral("123_[1-5%2]") << true << false;
    QTest::addRow("het job") << QStringLiteral("123+1") << true << false;
    QTest::addRow("pbs server") << QStringLiteral("123.pbs01.example.org") << false << true;
    QTest::addRow("pbs array") << QStringLiteral("123[].pbs01") << false << true;
    QTest::addRow("pbs subjob") << QStringLiteral("123[7].pbs01") << false << true;
    QTest::addRow("truncated") << QStringLiteral("12345.pbs0*") << false << false;
    QTest::addRow("word") << QStringLiteral("JOBID") << false << false;
    QTest::addRow("empty") << QString() << false << false;
    QTest::addRow("space") << QStringLiteral("12 3") << false << false;
    QTest::addRow("step") << QStringLiteral("123.batch") << false << true;
}

void TestSchedulerText::jobIds()
{
    QFETCH(QString, id);
    QFETCH(bool, slurm);
    QFETCH(bool, pbs);
    QCOMPARE(isSlurmJobId(id), slurm);
    QCOMPARE(isPbsJobId(id), pbs);
}

void TestSchedulerText::linesKeepTheirNumbers()
{
    const QList<Line> lines = nonBlankLines("first\r\n\n  \nfourth\n");
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines.at(0).number, 1);
    QCOMPARE(lines.at(0).text, QStringLiteral("first"));
    QCOMPARE(lines.at(1).number, 4);
    QVERIFY(nonBlankLines(QByteArray()).isEmpty());
}

TORCHDECK_TEST_MAIN(TestSchedulerText)
#include "tst_schedulertext.moc"
