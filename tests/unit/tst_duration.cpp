// core/duration.h: the one way durations are written, in the terminal and in the window.
#include "core/duration.h"
#include "testmain.h"

#include <QTest>
#include <cmath>

using namespace torchdeck;

class TestDuration : public QObject {
    Q_OBJECT
private slots:
    void formats_data()
    {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::addRow("unknown") << double(NAN) << QString();
        QTest::addRow("negative") << -1.0 << QString();
        QTest::addRow("zero") << 0.0 << QStringLiteral("0s");
        QTest::addRow("rounded") << 44.6 << QStringLiteral("45s");
        QTest::addRow("minutes") << 125.0 << QStringLiteral("2m05s");
        QTest::addRow("hours") << 3720.0 << QStringLiteral("1h02m");
        QTest::addRow("days") << 2.0 * 86400 + 4 * 3600 << QStringLiteral("2d04h");
    }
    void formats()
    {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(formatDuration(seconds), text);
    }
    void parses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("seconds"); // -1: refused
        QTest::addRow("plain seconds") << QStringLiteral("90") << qint64(90);
        QTest::addRow("seconds") << QStringLiteral("45s") << qint64(45);
        QTest::addRow("minute") << QStringLiteral("1m") << qint64(60);
        QTest::addRow("together") << QStringLiteral("1h30m") << qint64(5400);
        QTest::addRow("day") << QStringLiteral(" 1D ") << qint64(86400);
        QTest::addRow("zero") << QStringLiteral("0m") << qint64(-1);
        QTest::addRow("empty") << QString() << qint64(-1);
        QTest::addRow("unit twice") << QStringLiteral("1m2m") << qint64(-1);
        QTest::addRow("out of order") << QStringLiteral("1m2h") << qint64(-1);
        QTest::addRow("no number") << QStringLiteral("m") << qint64(-1);
        QTest::addRow("trailing number") << QStringLiteral("1m30") << qint64(-1);
        QTest::addRow("other unit") << QStringLiteral("2w") << qint64(-1);
        QTest::addRow("negative") << QStringLiteral("-5") << qint64(-1);
    }
    void parses()
    {
        QFETCH(QString, text);
        QFETCH(qint64, seconds);
        QCOMPARE(parseDuration(text).value_or(-1), seconds);
    }
};

TORCHDECK_TEST_MAIN(TestDuration)
#include "tst_duration.moc"
