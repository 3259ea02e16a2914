// An ended job's logs kept on this machine (core/store/keptlogs.h): whole or absent, their end where long, gone with
// their run's record.
#include "core/store/keptlogs.h"
#include "core/store/runstore.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

class TestKeptLogs : public QObject {
    Q_OBJECT

private slots:
    void keepsAndReadsAnAttempt()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("runs.sqlite"));
        QVERIFY(!readKeptLog(store, QStringLiteral("r1"), 0));
        KeptLog log;
        log.out = "epoch 1\nepoch 2\n";
        log.err = "warning\n";
        QString error;
        QVERIFY2(writeKeptLog(store, QStringLiteral("r1"), 0, log, &error), qPrintable(error));
        const auto kept = readKeptLog(store, QStringLiteral("r1"), 0);
        QVERIFY(kept);
        QCOMPARE(kept->out, log.out);
        QCOMPARE(kept->err, log.err);
        QVERIFY(!kept->truncated());
        QVERIFY(!readKeptLog(store, QStringLiteral("r1"), 1)); // another attempt: none kept
        QCOMPARE(QFile(keptLogDirectory(store, QStringLiteral("r1"))).permissions() & QFileDevice::ReadOther,
                 QFileDevice::Permissions());
    }

    void saysWhereOnlyTheEndWasKept()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("runs.sqlite"));
        KeptLog log;
        log.out = "the end\n";
        log.outSize = kKeptLogBytes * 3;
        QString error;
        QVERIFY(writeKeptLog(store, QStringLiteral("r"), 2, log, &error));
        const auto kept = readKeptLog(store, QStringLiteral("r"), 2);
        QVERIFY(kept && kept->truncated());
        QCOMPARE(kept->outSize, kKeptLogBytes * 3);
        QCOMPARE(kept->errSize, -1);
    }

    void settledWhenKeptOrMarkedNone()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("runs.sqlite"));
        QVERIFY(!keptLogSettled(store, QStringLiteral("r"), 0));
        QString error;
        QVERIFY2(markNoKeptLog(store, QStringLiteral("r"), 0, &error), qPrintable(error));
        QVERIFY(keptLogSettled(store, QStringLiteral("r"), 0));
        QVERIFY(!readKeptLog(store, QStringLiteral("r"), 0)); // none to show: `logs` asks the cluster
        QVERIFY(!keptLogSettled(store, QStringLiteral("r"), 1));
        QVERIFY(writeKeptLog(store, QStringLiteral("r"), 1, KeptLog{"x\n", {}, -1, -1}, &error));
        QVERIFY(keptLogSettled(store, QStringLiteral("r"), 1));
    }

    void goWithTheirRun()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(dir.filePath(QStringLiteral("runs.sqlite"))).ok());
        RunRecord run;
        run.id = QStringLiteral("gone");
        QVERIFY(store.addRun(run).ok());
        QString error;
        QVERIFY(writeKeptLog(store.path(), run.id, 0, KeptLog{"x\n", {}, -1, -1}, &error));
        QVERIFY(QDir(keptLogDirectory(store.path(), run.id)).exists());
        QVERIFY(store.removeRun(run.id).ok());
        QVERIFY(!QDir(keptLogDirectory(store.path(), run.id)).exists());
    }
};

TORCHDECK_TEST_MAIN(TestKeptLogs)
#include "tst_keptlogs.moc"
