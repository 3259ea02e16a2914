// The branch a resume from an older checkpoint starts: its shell command, run by a real POSIX shell on real
// files (hostile directory names included), and the store's record of what moved.
#include "core/runs/checkpointbranch.h"
#include "core/store/runstore.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

class TestCheckpointBranch : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_live;
    RunStore m_store;

    void writeCheckpoint(const QString &dir, qint64 step, const QByteArray &content)
    {
        QDir().mkpath(dir);
        const QString name = QStringLiteral("checkpoint-%1.pt").arg(step, 10, 10, QChar(u'0'));
        const QString checkpoint = dir + u'/' + name;
        for (const QString &path : QStringList{checkpoint, checkpoint + QStringLiteral(".json")}) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        }
        CheckpointRecord record;
        record.runId = QStringLiteral("run");
        record.path = dir + u'/' + name;
        record.step = step;
        record.epoch = step / 10;
        QVERIFY(m_store.saveCheckpoint(record).ok());
    }
    QString path(qint64 step, const QString &dir = {}) const
    {
        return (dir.isEmpty() ? m_live : dir) + QStringLiteral("/checkpoint-%1.pt").arg(step, 10, 10, QChar(u'0'));
    }
    QByteArray runUnderSh(const CheckpointBranch &branch)
    {
        QProcess shell;
        shell.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), branch.command()});
        if (!shell.waitForFinished(10000) || shell.exitCode() != 0)
            qWarning("shell failed: %s", shell.readAllStandardError().constData());
        return shell.readAllStandardOutput();
    }
    QStringList storedPaths() const
    {
        QStringList paths;
        for (const CheckpointRecord &c : m_store.checkpoints(QStringLiteral("run")).value)
            paths.append(c.path);
        paths.sort();
        return paths;
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        // Spaces, quotes, a command substitution and a glob in the run's directory name.
        m_live = m_dir.path() + QStringLiteral("/run 'a' \"b\" $(touch CANARY) *") + QStringLiteral("/checkpoints");
        QVERIFY(m_store.open(m_dir.path() + QStringLiteral("/runs.sqlite")).ok());
        RunRecord run;
        run.id = QStringLiteral("run");
        run.cluster = QStringLiteral("sandbox");
        QVERIFY(m_store.addRun(run).ok());
        for (qint64 step : {10, 20, 30})
            writeCheckpoint(m_live, step, QByteArray::number(step));
    }
    void cleanup()
    {
        m_store.close();
        QDir(m_dir.path()).removeRecursively();
        QDir().mkpath(m_dir.path());
    }

    void newerCheckpointsMoveAside()
    {
        const CheckpointBranch branch{m_live, path(10), 3};
        QCOMPARE(branch.chosenStep(), 10);
        const QByteArray output = runUnderSh(branch);
        QCOMPARE(output, QByteArray("moved checkpoint-0000000020.pt\nmoved checkpoint-0000000030.pt\n"));
        const QString aside = branch.asideDirectory();
        QVERIFY(aside.endsWith(QStringLiteral("/checkpoints/superseded-a3")));
        QVERIFY(QFile::exists(path(10)));
        QVERIFY(!QFile::exists(path(20)));
        for (qint64 step : {20, 30}) {
            QVERIFY(QFile::exists(path(step, aside)));
            QVERIFY(QFile::exists(path(step, aside) + QStringLiteral(".json")));
        }
        QVERIFY(!QFile::exists(m_dir.path() + QStringLiteral("/CANARY")));
        QVERIFY(!QFile::exists(QDir::currentPath() + QStringLiteral("/CANARY")));

        QVERIFY(branch.apply(m_store, QStringLiteral("run"), output).ok());
        QCOMPARE(storedPaths(), (QStringList{path(10), path(20, aside), path(30, aside)}));
        QVERIFY(isSupersededCheckpoint(path(20, aside)));
        QVERIFY(!isSupersededCheckpoint(path(10)));
        // By step, the live copy wins over one set aside.
        writeCheckpoint(m_live, 20, "branch");
        QCOMPARE(checkpointNamed(m_store.checkpoints(QStringLiteral("run")).value, QStringLiteral("20")), path(20));
    }

    void theLatestMovesNothing()
    {
        const CheckpointBranch branch{m_live, path(30), 1};
        QCOMPARE(runUnderSh(branch), QByteArray());
        QVERIFY(!QDir(branch.asideDirectory()).exists());
    }

    void aChoiceSetAsideIsCopiedBack()
    {
        const QString aside = supersededCheckpointDirectory(m_live, 2);
        writeCheckpoint(aside, 25, "twenty-five");
        const CheckpointBranch branch{m_live, path(25, aside), 4};
        const QByteArray output = runUnderSh(branch);
        QCOMPARE(output, QByteArray("moved checkpoint-0000000030.pt\ncopied checkpoint-0000000025.pt\n"));
        QFile copy(path(25));
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QCOMPARE(copy.readAll(), QByteArray("twenty-five"));
        QVERIFY(QFile::exists(path(25) + QStringLiteral(".json")));
        QVERIFY(QFile::exists(path(25, aside))); // the choice itself stays where it was
        QVERIFY(branch.apply(m_store, QStringLiteral("run"), output).ok());
        QVERIFY(storedPaths().contains(path(25)));
        QVERIFY(storedPaths().contains(path(30, branch.asideDirectory())));
    }

    void aMissingFileFailsTheCommand()
    {
        // Pruned by the trainer (it keeps the newest K), or never there: nothing moves.
        for (const QString &chosen :
             QStringList{path(5), m_dir.path() + QStringLiteral("/elsewhere/checkpoint-0000000015.pt")}) {
            const CheckpointBranch branch{m_live, chosen, 5};
            QProcess shell;
            shell.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), branch.command()});
            QVERIFY(shell.waitForFinished(10000));
            QVERIFY(shell.exitCode() != 0);
            QCOMPARE(shell.readAllStandardError(),
                     (chosen + QStringLiteral(" is no longer on the cluster\n")).toUtf8());
            QVERIFY(!QDir(branch.asideDirectory()).exists());
            QVERIFY(QFile::exists(path(30)));
        }
    }
};

TORCHDECK_TEST_MAIN(TestCheckpointBranch)
#include "tst_checkpointbranch.moc"
