#include "core/jobs/walltime.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestWallTime : public QObject {
    Q_OBJECT
private slots:
    void parses_data();
    void parses();
    void rejects_data();
    void rejects();
    void formats_data();
    void formats();
    void formatThenParseRoundTrips();
};

void TestWallTime::parses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds");
    QTest::addRow("minutes") << QStringLiteral("90") << qint64(90 * 60);
    QTest::addRow("minutes:seconds") << QStringLiteral("5:30") << qint64(330);
    QTest::addRow("HH:MM:SS") << QStringLiteral("01:00:00") << qint64(3600);
    QTest::addRow("hours past a day") << QStringLiteral("48:00:00") << qint64(48 * 3600);
    QTest::addRow("D-HH") << QStringLiteral("2-12") << qint64(2 * 86400 + 12 * 3600);
    QTest::addRow("D-HH:MM") << QStringLiteral("1-00:30") << qint64(86400 + 1800);
    QTest::addRow("D-HH:MM:SS") << QStringLiteral("1-02:03:04") << qint64(86400 + 2 * 3600 + 3 * 60 + 4);
    QTest::addRow("zero days") << QStringLiteral("0-00:00:01") << qint64(1);
    QTest::addRow("single digits") << QStringLiteral("1:2:3") << qint64(3723);
}

void TestWallTime::parses()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    QCOMPARE(parseWallTime(text), std::optional<qint64>(seconds));
}

void TestWallTime::rejects_data()
{
    QTest::addColumn<QString>("text");
    QTest::addRow("empty") << QString();
    QTest::addRow("zero") << QStringLiteral("0");
    QTest::addRow("all zero") << QStringLiteral("00:00:00");
    QTest::addRow("sixty minutes field") << QStringLiteral("1:60:00");
    QTest::addRow("sixty seconds") << QStringLiteral("1:00:60");
    QTest::addRow("24 hours after a day") << QStringLiteral("1-24:00:00");
    QTest::addRow("four fields") << QStringLiteral("1:2:3:4");
    QTest::addRow("negative") << QStringLiteral("-5");
    QTest::addRow("sign") << QStringLiteral("+5");
    QTest::addRow("spaces") << QStringLiteral(" 5");
    QTest::addRow("letters") << QStringLiteral("1h");
    QTest::addRow("empty field") << QStringLiteral("1::00");
    QTest::addRow("two dashes") << QStringLiteral("1-2-3");
    QTest::addRow("non-ASCII digit") << QStringLiteral("١٢");
    QTest::addRow("huge") << QStringLiteral("999999999:00:00");
    QTest::addRow("too many digits") << QStringLiteral("99999999999999999999");
    QTest::addRow("trailing colon") << QStringLiteral("10:");
}

void TestWallTime::rejects()
{
    QFETCH(QString, text);
    QCOMPARE(parseWallTime(text), std::nullopt);
}

void TestWallTime::formats_data()
{
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("slurm");
    QTest::addColumn<QString>("pbs");
    QTest::addRow("minute") << qint64(60) << QStringLiteral("00:01:00") << QStringLiteral("00:01:00");
    QTest::addRow("odd") << qint64(3723) << QStringLiteral("01:02:03") << QStringLiteral("01:02:03");
    QTest::addRow("day") << qint64(86400) << QStringLiteral("1-00:00:00") << QStringLiteral("24:00:00");
    QTest::addRow("days") << qint64(2 * 86400 + 5) << QStringLiteral("2-00:00:05") << QStringLiteral("48:00:05");
    QTest::addRow("hundred hours") << qint64(100 * 3600) << QStringLiteral("4-04:00:00") << QStringLiteral("100:00:00");
}

void TestWallTime::formats()
{
    QFETCH(qint64, seconds);
    QFETCH(QString, slurm);
    QFETCH(QString, pbs);
    QCOMPARE(formatSlurmWallTime(seconds), slurm);
    QCOMPARE(formatPbsWallTime(seconds), pbs);
}

void TestWallTime::formatThenParseRoundTrips()
{
    for (const qint64 seconds :
         {qint64(1), qint64(59), qint64(3599), qint64(86399), qint64(86400), qint64(7 * 86400 + 3661)}) {
        QCOMPARE(parseWallTime(formatSlurmWallTime(seconds)), std::optional<qint64>(seconds));
        QCOMPARE(parseWallTime(formatPbsWallTime(seconds)), std::optional<qint64>(seconds));
    }
}

TORCHDECK_TEST_MAIN(TestWallTime)
#include "tst_walltime.moc"
