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
};

TORCHDECK_TEST_MAIN(TestDuration)
#include "tst_duration.moc"
