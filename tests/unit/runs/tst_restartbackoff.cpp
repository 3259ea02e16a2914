// The wait before a refused restart is tried again (core/runs/restartbackoff.h).
#include "core/runs/restartbackoff.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestRestartBackoff : public QObject {
    Q_OBJECT
private slots:
    void doublesUpToHalfAnHour_data()
    {
        QTest::addColumn<int>("previous");
        QTest::addColumn<int>("next");
        QTest::addRow("first refusal") << 0 << 30;
        QTest::addRow("second") << 30 << 60;
        QTest::addRow("third") << 60 << 120;
        QTest::addRow("just under the cap") << 960 << 1800;
        QTest::addRow("at the cap") << 1800 << 1800;
        QTest::addRow("past the cap (an older build's wait)") << 7200 << 1800;
        QTest::addRow("nonsense") << -5 << 30;
    }
    void doublesUpToHalfAnHour()
    {
        QFETCH(int, previous);
        QFETCH(int, next);
        QCOMPARE(nextRestartRetrySeconds(previous), next);
    }

    void aRunLeftOvernightIsTriedAFewTimesAnHour()
    {
        int waited = 0;
        int tries = 0;
        for (int delay = 0; waited < 12 * 3600; ++tries) {
            delay = nextRestartRetrySeconds(delay);
            waited += delay;
        }
        QVERIFY2(tries < 12 * 2 + 8, qPrintable(QString::number(tries)));
    }
};

TORCHDECK_TEST_MAIN(TestRestartBackoff)
#include "tst_restartbackoff.moc"
