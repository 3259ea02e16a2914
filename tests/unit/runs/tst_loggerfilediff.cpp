// A custom command's logger files (core/runs/loggerfilediff.h): what find printed, which changed, from where
// each is read and what its bytes give. The find runs for real in anyjob.logger_files.
#include "core/runs/loggerfilediff.h"
#include "testmain.h"

#include <QFile>
#include <QTest>
#include <cmath>

using namespace torchdeck;

namespace {
const QString csv = QStringLiteral("/w/runs/r/code/lightning_logs/version_0/metrics.csv");
const QString events = QStringLiteral("/w/runs/r/runs/nov26/events.out.tfevents.1764158000.node1");
} // namespace

class TestLoggerFileDiff : public QObject {
    Q_OBJECT
private slots:
    void findOutput()
    {
        // Two runs in one find: r's first script, its files written before it (a snapshot's) and after, a
        // damaged entry; s before its first script exists.
        const QByteArray out = "1764158000.5 10 /w/runs/r/job-0.sh" + QByteArray(1, '\0') + "1764158000.6 120 " +
                               csv.toUtf8() + '\0' + "1764158000.4 9 /w/runs/r/code/old/metrics.csv" + '\0' +
                               "1764158000.5 9 /w/runs/r/same-time/metrics.csv" + '\0' + "not-a-time 5 /w/x" + '\0' +
                               '\0' + "-1" + '\0' + "1764158001 55 " + events.toUtf8() + '\0' +
                               "1764158000.50000001 7 /w/runs/r/a path with spaces/metrics.csv" + '\0' +
                               "1764158009 3 /w/runs/s/metrics.csv" + '\0' + "1764158000 3 /w/runs/r/code/job-0.sh";
        const QStringList directories{QStringLiteral("/w/runs/r"), QStringLiteral("/w/runs/s"),
                                      QStringLiteral("/w/runs/t")};
        const auto found = parseFoundLoggerFiles(out, directories);
        QCOMPARE(found.size(), 3); // each directory asked for, those with nothing too
        const QList<LoggerFileRecord> &r = found.value(directories.at(0));
        QCOMPARE(r.size(), 3);
        QCOMPARE(r.at(0).path, csv);
        QCOMPARE(r.at(0).size, 120);
        QCOMPARE(r.at(1).path, events);
        QCOMPARE(r.at(1).size, 55);
        QCOMPARE(r.at(2).path, QStringLiteral("/w/runs/r/a path with spaces/metrics.csv"));
        QVERIFY(found.value(directories.at(1)).isEmpty());
        QVERIFY(found.value(directories.at(2)).isEmpty());
        const QString command = loggerFilesFindCommand({QStringLiteral("/w/runs/it's"), QStringLiteral("/w/runs/b")});
        QVERIFY(command.startsWith(QStringLiteral("find '/w/runs/it'\\''s' /w/runs/b -maxdepth ")));
    }

    void changed_data()
    {
        QTest::addColumn<QList<LoggerFileRecord>>("stored");
        QTest::addColumn<QList<LoggerFileRecord>>("found");
        QTest::addColumn<QStringList>("changed");
        QTest::addColumn<QList<int>>("attempts");
        QTest::addColumn<QList<qint64>>("offsets");
        const QList<LoggerFileRecord> both{{csv, 0, 0, 120}, {events, 0, 0, 55}};
        QTest::addRow("both new, of this attempt")
            << QList<LoggerFileRecord>{} << both << QStringList{csv, events} << QList<int>{2, 2} << QList<qint64>{0, 0};
        QTest::addRow("nothing grew") << QList<LoggerFileRecord>{{csv, 0, 3, 120}, {events, 1, 40, 55}} << both
                                      << QStringList{} << QList<int>{} << QList<qint64>{};
        QTest::addRow("the event file grew: from its offset, its first attempt's")
            << QList<LoggerFileRecord>{{csv, 0, 3, 120}, {events, 1, 40, 50}} << both << QStringList{events}
            << QList<int>{1} << QList<qint64>{40};
        QTest::addRow("the CSV rewritten (a new column): read whole")
            << QList<LoggerFileRecord>{{csv, 0, 3, 100}, {events, 1, 40, 55}} << both << QStringList{csv}
            << QList<int>{0} << QList<qint64>{0};
    }
    void changed()
    {
        QFETCH(QList<LoggerFileRecord>, stored);
        QFETCH(QList<LoggerFileRecord>, found);
        QFETCH(QStringList, changed);
        QFETCH(QList<int>, attempts);
        QFETCH(QList<qint64>, offsets);
        const QList<LoggerFileChange> changes = changedLoggerFiles(found, stored, 2);
        QCOMPARE(changes.size(), changed.size());
        for (qsizetype i = 0; i < changes.size(); ++i) {
            QCOMPARE(changes.at(i).found.path, changed.at(i));
            QCOMPARE(changes.at(i).found.attempt, attempts.at(i));
            QCOMPARE(loggerFileReadOffset(changes.at(i)), offsets.at(i));
        }
    }

    void aLightningCsvIsCountedInRows()
    {
        const QByteArray file = "epoch,step,train_loss,val_loss\n0,9,0.5,\n0,9,,0.45\n1,19,0.4,\n1,19";
        LoggerFileChange change{{csv, 0, 0, 0}, {csv, 0, 0, file.size()}};
        const LoggerFileRead first = readLoggerFileBytes(change, file, 1000.5);
        QVERIFY(first.changed);
        QCOMPARE(first.after.offset, 3); // the last row is still being written
        QCOMPARE(first.after.size, file.size());
        QVERIFY(!first.events.isEmpty());
        for (const MetricEvent &event : first.events) {
            QCOMPARE(event.source, MetricSource::LoggerFiles);
            QCOMPARE(event.time, 1000.5); // the CSV has no times: when it was read
        }
        QVERIFY(first.skipped.isEmpty());
        change.before = first.after;
        const LoggerFileRead again = readLoggerFileBytes(change, file, 1001);
        QVERIFY(!again.changed);
        QVERIFY(again.events.isEmpty());
        const QByteArray bad = "epoch,step,train_loss\n0,9,zero\n";
        const LoggerFileRead damaged = readLoggerFileBytes({{csv, 0, 0, 0}, {csv, 0, 0, bad.size()}}, bad, 1);
        QVERIFY2(damaged.skipped.contains(QStringLiteral("1 cell(s) that are no numbers skipped")),
                 qPrintable(damaged.skipped));
    }

    void anEventFileIsReadFromItsOffset()
    {
        QFile file(QStringLiteral(TORCHDECK_TEST_DATA "/metrics/scalars.tfevents"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        const LoggerFileRead whole = readLoggerFileBytes({{events, 1, 0, 0}, {events, 1, 0, bytes.size()}}, bytes, 5);
        QVERIFY(whole.changed);
        QCOMPARE(whole.after.offset, bytes.size());
        QCOMPARE(whole.after.attempt, 1);
        QVERIFY(!whole.events.isEmpty());
        QVERIFY(whole.runMessage.isEmpty());
        QByteArray torn = bytes;
        torn[torn.size() / 2] = char(torn.at(torn.size() / 2) ^ 0x5a);
        const LoggerFileRead damaged = readLoggerFileBytes({{events, 1, 0, 0}, {events, 1, 0, torn.size()}}, torn, 5);
        QVERIFY2(damaged.runMessage.startsWith(QStringLiteral("events.out.tfevents.1764158000.node1: ")),
                 qPrintable(damaged.runMessage));
    }
};

TORCHDECK_TEST_MAIN(TestLoggerFileDiff)
#include "tst_loggerfilediff.moc"
