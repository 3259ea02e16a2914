// A run's checkpoints as the fronts list them (core/runs/checkpointinventory.h): the marks, the deletion plan,
// and the two shell commands, run by a real POSIX shell on real files with a hostile directory name.
#include "core/runs/checkpointinventory.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
CheckpointRecord checkpoint(const QString &dir, qint64 step, qint64 epoch, const QString &reason)
{
    CheckpointRecord c;
    c.path = dir + QStringLiteral("/checkpoint-%1.pt").arg(step, 10, 10, QChar(u'0'));
    c.step = step;
    c.epoch = epoch;
    c.reason = reason;
    return c;
}

MetricEvent epochEvent(qint64 epoch, double valLoss)
{
    MetricEvent e;
    e.kind = MetricEventKind::Epoch;
    e.epoch = epoch;
    e.valLoss = valLoss;
    return e;
}

QByteArray runUnderSh(const QString &command)
{
    QProcess shell;
    shell.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
    shell.waitForFinished(10000);
    return shell.readAllStandardOutput();
}
} // namespace

class TestCheckpointInventory : public QObject {
    Q_OBJECT
    const QString m_live = QStringLiteral("/w/run/checkpoints");

    QList<CheckpointRecord> records() const
    {
        return {checkpoint(m_live, 10, 1, QStringLiteral("epoch")), checkpoint(m_live, 20, 2, QStringLiteral("epoch")),
                checkpoint(m_live, 25, 2, QStringLiteral("signal")),
                checkpoint(supersededCheckpointDirectory(m_live, 2), 30, 3, QStringLiteral("epoch")),
                checkpoint(m_live, 40, 4, QStringLiteral("final"))};
    }
    RunSeries valLosses() const
    {
        RunSeries series;
        const double losses[] = {0.5, 0.2, 0.1, 0.3};
        for (int epoch = 1; epoch <= 4; ++epoch)
            series.apply(epochEvent(epoch, losses[epoch - 1]));
        return series;
    }

private slots:
    void marksLatestBestAndSetAside()
    {
        const QList<CheckpointRecord> all = records();
        // step 40 is gone (deleted by hand): the latest is the newest live one still there.
        const QStringList present{all[0].path, all[1].path, all[2].path, all[3].path};
        const QList<CheckpointEntry> entries = markCheckpoints(all, present, valLosses());
        QCOMPARE(entries.size(), 5);
        QVERIFY(entries[2].latest); // 25, not 30 (set aside) nor 40 (gone)
        QCOMPARE(std::count_if(entries.cbegin(), entries.cend(), [](const CheckpointEntry &e) { return e.latest; }), 1);
        QVERIFY(entries[3].setAside && entries[3].present);
        QVERIFY(entries[3].best); // epoch 3's 0.1, though set aside
        QVERIFY(!entries[4].present);
        // The signal checkpoint of epoch 2 is mid-epoch 3: not an end-of-epoch one, never the best.
        const QList<CheckpointEntry> withoutThree =
            markCheckpoints(all, {all[0].path, all[1].path, all[2].path}, valLosses());
        QVERIFY(withoutThree[1].best);
        QVERIFY(!withoutThree[2].best);
    }

    void deletionRefusesTheLatestAndUnknownNames()
    {
        const QList<CheckpointRecord> all = records();
        const QList<CheckpointEntry> entries =
            markCheckpoints(all, {all[0].path, all[1].path, all[2].path}, valLosses());
        const CheckpointDeletion plan =
            planCheckpointDeletion(entries, {QStringLiteral("10"), QStringLiteral("checkpoint-0000000020.pt")});
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.paths, (QStringList{all[0].path, all[1].path}));
        QVERIFY(
            planCheckpointDeletion(entries, {QStringLiteral("25")}).error.contains(u"the one a resume starts from"));
        QVERIFY(planCheckpointDeletion(entries, {QStringLiteral("99")}).error.contains(u"no checkpoint '99'"));
    }

    void commandsListAndDeleteRealFiles()
    {
        QTemporaryDir dir;
        const QString live = dir.path() + QStringLiteral("/run 'a' $(touch CANARY) *");
        QVERIFY(QDir().mkpath(live));
        QList<CheckpointRecord> all{checkpoint(live, 1, 0, {}), checkpoint(live, 2, 0, {}), checkpoint(live, 3, 0, {})};
        for (const CheckpointRecord &c : std::as_const(all)) {
            if (c.step == 2)
                continue; // pruned by the trainer
            for (const QString &path : QStringList{c.path, c.path + QStringLiteral(".json")}) {
                QFile file(path);
                QVERIFY(file.open(QIODevice::WriteOnly));
            }
        }
        QCOMPARE(parsePresentCheckpoints(runUnderSh(presentCheckpointsCommand(all))),
                 (QStringList{all[0].path, all[2].path}));
        runUnderSh(deleteCheckpointsCommand({all[0].path}));
        QVERIFY(!QFile::exists(all[0].path));
        QVERIFY(!QFile::exists(all[0].path + QStringLiteral(".json")));
        QVERIFY(QFile::exists(all[2].path));
        QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/CANARY")));
    }

    // A long run records tens of thousands of checkpoints: the command names their folders, so it stays far
    // below the kernel's 128 KiB limit on one argument (the whole command is one for sh -c).
    void theCommandDoesNotGrowWithTheCheckpoints()
    {
        QTemporaryDir dir;
        const QString live = dir.path() + QStringLiteral("/checkpoints");
        QVERIFY(QDir().mkpath(live + QStringLiteral("/superseded-a2")));
        QList<CheckpointRecord> all;
        for (int step = 1; step <= 20000; ++step)
            all.append(checkpoint(step % 2 ? live : live + QStringLiteral("/superseded-a2"), step, 0, {}));
        const QString command = presentCheckpointsCommand(all);
        QVERIFY2(command.size() < 1024, qPrintable(QString::number(command.size())));
        for (const int index : {0, 1, 19999}) {
            QFile file(all[index].path);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        QStringList present = parsePresentCheckpoints(runUnderSh(command));
        present.sort();
        QStringList expected{all[0].path, all[1].path, all[19999].path};
        expected.sort();
        QCOMPARE(present, expected);
    }

    // A run continued on cluster b: attempt 0's checkpoints lie on a, attempt 1's on b. Each is checked where it lies,
    // each cluster has its own latest, and a deletion goes to the cluster of each file.
    void aRunContinuedElsewhereHasCheckpointsOnEachCluster()
    {
        const QString a = QStringLiteral("a");
        const QString b = QStringLiteral("b");
        JobRecord first;
        first.attempt = 0;
        first.cluster = a;
        JobRecord second;
        second.attempt = 1;
        second.cluster = b;
        const CheckpointPlaces places(b, {first, second});
        QList<CheckpointRecord> all{checkpoint(QStringLiteral("/a/run/checkpoints"), 10, 1, QStringLiteral("epoch")),
                                    checkpoint(QStringLiteral("/a/run/checkpoints"), 20, 2, QStringLiteral("final")),
                                    checkpoint(QStringLiteral("/b/run/checkpoints"), 30, 3, QStringLiteral("epoch")),
                                    checkpoint(QStringLiteral("/b/run/checkpoints"), 40, 4, QStringLiteral("final"))};
        all[2].attempt = all[3].attempt = 1;
        CheckpointRecord unplaced = checkpoint(QStringLiteral("/b/run/checkpoints"), 50, 5, QStringLiteral("final"));
        unplaced.attempt = 7; // no job of its attempt recorded: the run's cluster
        QCOMPARE(places.of(unplaced), b);
        QCOMPARE(places.clusters(all), (QStringList{b, a})); // the run's own first
        QCOMPARE(places.on(a, all).size(), 2);
        QCOMPARE(places.on(a, all).constLast().path, all[1].path);
        QCOMPARE(places.asRecorded(all).value(a), (QStringList{all[0].path, all[1].path}));
        QCOMPARE(places.asRecorded(all).value(b), (QStringList{all[2].path, all[3].path}));

        const QHash<QString, QStringList> listed{{a, {all[0].path, all[1].path}}, {b, {all[2].path, all[3].path}}};
        QList<CheckpointEntry> entries = markCheckpoints(all, places, listed, valLosses());
        for (const CheckpointEntry &entry : std::as_const(entries))
            QVERIFY2(entry.checked && entry.present, qPrintable(entry.record.path));
        QCOMPARE(entries[1].cluster, a);
        QVERIFY(entries[1].latest && entries[3].latest); // what a resume on each starts from
        QVERIFY(!entries[0].latest && !entries[2].latest);
        QVERIFY(entries[2].best); // epoch 3's 0.1, over both clusters
        QVERIFY(
            planCheckpointDeletion(entries, {QStringLiteral("20")}).error.contains(u"the one a resume starts from"));
        const CheckpointDeletion plan = planCheckpointDeletion(entries, {QStringLiteral("10"), QStringLiteral("30")});
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.byCluster.value(a), QStringList{all[0].path});
        QCOMPARE(plan.byCluster.value(b), QStringList{all[2].path});

        // a not reached: its checkpoints are unchecked, neither deleted nor the latest.
        entries = markCheckpoints(all, places, {{b, listed.value(b)}}, valLosses());
        QVERIFY(!entries[0].checked && !entries[1].checked && !entries[1].latest);
        QVERIFY(entries[3].checked && entries[3].present && entries[3].latest);
    }
};

TORCHDECK_TEST_MAIN(TestCheckpointInventory)
#include "tst_checkpointinventory.moc"
