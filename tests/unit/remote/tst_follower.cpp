// The login-node follower (remote/follower/): its frames read by FollowerFrames, and both of its forms (the C
// program built by remote/followerinstall.h's command, and the bash fallback) run here as they run on a login node.
#include "remote/followerframes.h"
#include "remote/followerinstall.h"
#include "testmain.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

using namespace torchdeck::remote;
using Kind = FollowerFrame::Kind;

namespace {
void writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly)
{
    QFile file(path);
    QVERIFY(file.open(mode));
    QCOMPARE(file.write(bytes), bytes.size());
}

// One form of the follower, running.
class RunningFollower {
public:
    explicit RunningFollower(const QString &command)
    {
        m_process.start(QStringLiteral("bash"), {QStringLiteral("-c"), command});
    }
    ~RunningFollower()
    {
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(10000))
            m_process.kill();
    }
    void tell(const QByteArray &command) { m_process.write(command); }
    // The next frame that is not a heartbeat (or is, with `heartbeats`); none when it sent none within 10 s.
    std::optional<FollowerFrame> next(bool heartbeats = false)
    {
        const QDeadlineTimer deadline(10000);
        for (;;) {
            while (std::optional<FollowerFrame> frame = m_frames.next()) {
                if (frame->kind != Kind::Heartbeat || heartbeats)
                    return frame;
            }
            if (m_frames.failed() || deadline.hasExpired() ||
                !m_process.waitForReadyRead(int(deadline.remainingTime())))
                return std::nullopt;
            m_frames.append(m_process.readAllStandardOutput());
        }
    }
    // Data frames, joined, until `length` bytes came.
    QByteArray data(quint64 id, qint64 offset, qint64 length)
    {
        QByteArray bytes;
        while (bytes.size() < length) {
            const std::optional<FollowerFrame> frame = next();
            if (!frame || frame->kind != Kind::Data || frame->id != id || frame->offset != offset + bytes.size())
                return bytes + "<unexpected frame>";
            bytes += frame->bytes;
        }
        return bytes;
    }
    QProcess &process() { return m_process; }

private:
    QProcess m_process;
    FollowerFrames m_frames;
};
} // namespace

class TestFollower : public QObject {
    Q_OBJECT
private slots:
    void readsFramesAsTheyCome()
    {
        FollowerFrames frames;
        frames.append("v 1\nd 7 10 5\nab");
        auto frame = frames.next();
        QVERIFY(frame && frame->kind == Kind::Ready && frame->version == 1);
        QVERIFY(!frames.next()); // its bytes are on their way
        frames.append("\n\nxt 7 15 0\nh 3 5\nr 7\ne 8\nf 9 13\n");
        frame = frames.next();
        QVERIFY(frame && frame->kind == Kind::Data);
        QCOMPARE(frame->id, 7u);
        QCOMPARE(frame->offset, 10);
        QCOMPARE(frame->bytes, QByteArray("ab\n\nx")); // bytes are bytes, new lines too
        frame = frames.next();
        QVERIFY(frame && frame->kind == Kind::Truncated && frame->offset == 15 && frame->size == 0);
        frame = frames.next();
        QVERIFY(frame && frame->kind == Kind::Heartbeat && frame->looks == 3 && frame->sent == 5);
        QCOMPARE(frames.next()->kind, Kind::Replaced);
        QCOMPARE(frames.next()->kind, Kind::Ended);
        frame = frames.next();
        QVERIFY(frame && frame->kind == Kind::Failed && frame->id == 9u && frame->error == 13);
        QVERIFY(!frames.next());
        QVERIFY(!frames.failed());
    }

    void failsOnWhatItCannotRead()
    {
        for (const QByteArray &bad : {QByteArray("Last login: today\n"), QByteArray("d 1 -5 3\nabc"),
                                      QByteArray("d 1 0\n"), QByteArray(300, 'x')}) {
            FollowerFrames frames;
            frames.append(bad);
            QVERIFY(!frames.next());
            QVERIFY2(frames.failed(), bad.constData());
        }
    }

    void writesCommandsItTakes()
    {
        QCOMPARE(followerAdd(3, 10, 0, true, 5, 50, QStringLiteral("/w/a b.log")),
                 QByteArray("A 3 10 0 1 5 50 /w/a b.log\n"));
        QCOMPARE(followerPace(3, 50, 500), QByteArray("P 3 50 500\n"));
        QCOMPARE(followerDrop(3), QByteArray("D 3\n"));
    }

    void follows_data()
    {
        QTest::addColumn<bool>("compilerWorks");
        QTest::newRow("compiled") << true;
        QTest::newRow("shell") << false;
    }
    void follows()
    {
        QFETCH(bool, compilerWorks);
        QTemporaryDir work;
        QVERIFY(work.isValid());
        QProcess install;
        if (!compilerWorks) { // a login node without a C compiler
            QVERIFY(QDir(work.path()).mkpath(QStringLiteral("bin")));
            for (const QString &compiler : {QStringLiteral("cc"), QStringLiteral("gcc"), QStringLiteral("clang")}) {
                const QString path = work.filePath(QStringLiteral("bin/") + compiler);
                writeFile(path, "#!/bin/sh\nexit 1\n");
                QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            }
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.insert(QStringLiteral("PATH"),
                               work.filePath(QStringLiteral("bin")) + u':' + environment.value(QStringLiteral("PATH")));
            install.setProcessEnvironment(environment);
        }
        install.start(QStringLiteral("bash"), {QStringLiteral("-c"), followerInstallCommand(work.path())});
        QVERIFY(install.waitForFinished(60000));
        QCOMPARE(install.exitCode(), 0);
        const FollowerForm form = followerFormFrom(work.path(), install.readAllStandardOutput());
        QCOMPARE(form.form, compilerWorks ? QStringLiteral("compiled") : QStringLiteral("shell"));

        const QString log = work.filePath(QStringLiteral("job.log"));
        writeFile(log, "line 1\n");
        RunningFollower follower(form.command);
        auto frame = follower.next();
        QVERIFY(frame && frame->kind == Kind::Ready && frame->version == 1);

        follower.tell(followerAdd(1, 0, 0, false, 5, 50, log));
        QCOMPARE(follower.data(1, 0, 7), QByteArray("line 1\n"));
        writeFile(log, "line 2\n", QIODevice::Append);
        QCOMPARE(follower.data(1, 7, 7), QByteArray("line 2\n"));

        writeFile(log, "new\n"); // truncated: a job that starts its log again
        frame = follower.next();
        QVERIFY(frame && frame->kind == Kind::Truncated && frame->id == 1u);
        QCOMPARE(frame->offset, 14);
        QVERIFY(frame->size == 0 || frame->size == 4); // looked at between the truncation and the write, or after
        QCOMPARE(follower.data(1, 0, 4), QByteArray("new\n"));

        const QString other = work.filePath(QStringLiteral("other.log"));
        writeFile(other, "replacement, longer than before\n");
        QVERIFY(std::rename(QFile::encodeName(other).constData(), QFile::encodeName(log).constData()) == 0);
        frame = follower.next();
        QVERIFY(frame && frame->kind == Kind::Replaced && frame->id == 1u);
        QCOMPARE(follower.data(1, 0, 32), QByteArray("replacement, longer than before\n"));
        follower.tell(followerDrop(1));

        const QString metrics = work.filePath(QStringLiteral("metrics.jsonl"));
        writeFile(metrics, "0123456789");
        follower.tell(followerAdd(2, 0, 4, false, 5, 50, metrics)); // the last 4 bytes on
        QCOMPARE(follower.data(2, 6, 4), QByteArray("6789"));
        follower.tell(followerDrop(2));
        follower.tell(followerAdd(3, 3, 0, true, 5, 50, metrics)); // once, from 3 to the end as found
        QCOMPARE(follower.data(3, 3, 7), QByteArray("3456789"));
        frame = follower.next();
        QVERIFY(frame && frame->kind == Kind::Ended && frame->id == 3u);

        follower.tell(followerAdd(4, 0, 0, true, 5, 50, work.filePath(QStringLiteral("none"))));
        frame = follower.next();
        QVERIFY(frame && frame->kind == Kind::Ended && frame->id == 4u); // missing, read once: nothing to read

        follower.process().closeWriteChannel(); // the agent's channel closed: it exits
        QVERIFY(follower.process().waitForFinished(10000));
        QCOMPARE(follower.process().exitCode(), 0);
    }

    void waitsForDescriptors()
    {
        // A login node out of descriptors for it (its limit, or the system's): the file is not given up, it is read
        // once a descriptor is free again.
        QTemporaryDir work;
        QVERIFY(work.isValid());
        QProcess install;
        install.start(QStringLiteral("bash"), {QStringLiteral("-c"), followerInstallCommand(work.path())});
        QVERIFY(install.waitForFinished(60000));
        const FollowerForm form = followerFormFrom(work.path(), install.readAllStandardOutput());
        QCOMPARE(form.form, QStringLiteral("compiled"));
        const QString log = work.filePath(QStringLiteral("job.log"));
        writeFile(log, "line 1\n");
        // Heartbeats every 20 ms tell how it fares.
        RunningFollower follower(form.command.section(u' ', 0, -2) + QStringLiteral(" 20"));
        auto frame = follower.next();
        QVERIFY(frame && frame->kind == Kind::Ready);
        const auto limitDescriptors = [&follower](const QString &soft) {
            QProcess limit;
            limit.start(QStringLiteral("prlimit"),
                        {QStringLiteral("--pid"), QString::number(follower.process().processId()),
                         QStringLiteral("--nofile=") + soft + u':'});
            QVERIFY(limit.waitForFinished(10000));
            QCOMPARE(limit.exitCode(), 0);
        };
        limitDescriptors(QStringLiteral("3")); // its standard streams only: every open fails with EMFILE
        follower.tell(followerAdd(1, 0, 0, false, 5, 50, log));
        do { // looked at, and failed to open it, a few times
            frame = follower.next(true);
            QVERIFY2(frame && frame->kind == Kind::Heartbeat, "a frame before a descriptor was free");
        } while (frame->looks < 3);
        limitDescriptors(QStringLiteral("64"));
        QCOMPARE(follower.data(1, 0, 7), QByteArray("line 1\n"));
    }
};

TORCHDECK_TEST_MAIN(TestFollower)
#include "tst_follower.moc"
