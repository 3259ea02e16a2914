// The cluster check's "Fair share" and "Quota" lines (core/runs/accountcheck.h), from what their probes print.
#include "core/runs/accountcheck.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestAccountCheck : public QObject {
    Q_OBJECT
private slots:
    void fairShare_data()
    {
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("err");
        QTest::addColumn<bool>("warning");
        QTest::addColumn<QString>("detail");
        QTest::addRow("one account") << 0 << QStringLiteral("physics|alice|0.512000\n") << QString() << false
                                     << QStringLiteral("fair-share factor by account: physics 0.51 (1: used little "
                                                       "lately; near 0: its jobs wait behind others)");
        QTest::addRow("account line skipped, a low one warns")
            << 0 << QStringLiteral("physics||0.900000\nphysics|alice|0.031000\nml|alice|0.700000\n") << QString()
            << true
            << QStringLiteral("fair-share factor by account: physics 0.03, ml 0.70 (1: used little lately; near 0: its "
                              "jobs wait behind others)");
        QTest::addRow("no accounting") << 1 << QString()
                                       << QStringLiteral("sshare: error: Problem talking to the database: Connection "
                                                         "refused\n")
                                       << false
                                       << QStringLiteral("not reported here: sshare: error: Problem talking to the "
                                                         "database: Connection refused");
        QTest::addRow("silent failure") << 1 << QString() << QString() << false
                                        << QStringLiteral("not reported here (sshare ended with exit code 1)");
        QTest::addRow("no accounting, quietly") << 0 << QString() << QString() << false
                                                << QStringLiteral("sshare reports no fair-share factor for you (no "
                                                                  "accounting here?)");
        QTest::addRow("no sshare") << 0 << QStringLiteral("none\n") << QString() << false
                                   << QStringLiteral("this scheduler reports none (no sshare)");
        QTest::addRow("nothing readable")
            << 0 << QStringLiteral("garbage\n") << QString() << false << QStringLiteral("not reported here: garbage");
    }
    void fairShare()
    {
        QFETCH(int, exitCode);
        QFETCH(QString, out);
        QFETCH(QString, err);
        QFETCH(bool, warning);
        QFETCH(QString, detail);
        const CheckItem item = fairShareItem(exitCode, out, err);
        QCOMPARE(item.name, QStringLiteral("Fair share"));
        QVERIFY(item.ok); // never fails the check
        QCOMPARE(item.warning, warning);
        QCOMPARE(item.detail, detail);
    }

    void quota_data()
    {
        QTest::addColumn<QString>("out");
        QTest::addColumn<bool>("warning");
        QTest::addColumn<QString>("detail");
        QTest::addRow("quota -s -w") << QStringLiteral("== quota\nDisk quotas for user alice (uid 1000): \n"
                                                       "     Filesystem   space   quota   limit   grace   files   "
                                                       "quota   limit   grace\n"
                                                       "      /dev/sdb1   1024M   4096M   6144M            12345       "
                                                       "0       0        \n")
                                     << false << QStringLiteral("/dev/sdb1: 1024M of 4096M (25%)");
        QTest::addRow("lustre over its soft limit")
            << QStringLiteral("== lfs /lustre\n        /lustre 1234567*  1000000 2000000  6d23h59m53s  100  0  0  -\n")
            << true
            << QStringLiteral(
                   "/lustre: 1234567 of 1000000, OVER \u2014 nearly full: a checkpoint that cannot be written "
                   "ends the run");
        QTest::addRow("nearly full, hard limit only")
            << QStringLiteral("== quota\n      /dev/sdb1   950M   0K   1000M            1       0       0\n") << true
            << QStringLiteral("/dev/sdb1: 950M of 1000M (95%) \u2014 nearly full: a checkpoint that cannot be written "
                              "ends the run");
        QTest::addRow("no limits") << QStringLiteral("== quota\nDisk quotas for user alice (uid 1000): none\n") << false
                                   << QStringLiteral("no limit set for you");
        QTest::addRow("no tools") << QStringLiteral("none\n") << false
                                  << QStringLiteral("no quota tools here (quota, lfs)");
    }
    void quota()
    {
        QFETCH(QString, out);
        QFETCH(bool, warning);
        QFETCH(QString, detail);
        const CheckItem item = quotaItem(out);
        QCOMPARE(item.name, QStringLiteral("Quota"));
        QVERIFY(item.ok);
        QCOMPARE(item.warning, warning);
        QCOMPARE(item.detail, detail);
    }
};

TORCHDECK_TEST_MAIN(TestAccountCheck)
#include "tst_accountcheck.moc"
