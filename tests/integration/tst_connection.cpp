// The threaded Connection against the sandbox: async commands, tails, and a connection killed mid-tail.
#include "remote/connection.h"
#include "remotewait.h"
#include "sandboxconnection.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QPointer>
#include <QProcess>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cerrno>
#include <csignal>
#include <memory>

using namespace torchdeck;
using namespace torchdeck::remote;
using torchdeck::testing::runAndWait;
using torchdeck::testing::waitConnected;

class TestConnection : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void runsCommandsConcurrently();
    void runsMoreCommandsThanTheServerHasChannels();
    void refusesQuestionsWhenNotInteractive();
    void acceptedHostKeysAreHashedWhenTheConfigSaysSo();
    void aStalledLinkIsNoticedAndRecovered();
    void tailDeliversAppendedBytesInOrder();
    void tailStartsOverOnAReplacedFile_data();
    void tailStartsOverOnAReplacedFile();
    void tailEndStartsNearTheEnd();
    void readFromReadsToTheEndOnce_data();
    void readFromReadsToTheEndOnce();
    void readFromFailsWhenNotConnected();
    void reconnectLosesAndDuplicatesNothing();
    void uploadIsAtomicWithProgress();
    void stoppedUploadLeavesNothing();
    void uploadToAMissingDirectoryFails();

private:
    ConnectionSettings settings() const;
    static void append(const QString &path, const QByteArray &bytes);

    QString m_sandboxDir;
    QTemporaryDir m_tmp;
};

void TestConnection::initTestCase()
{
    m_sandboxDir = qEnvironmentVariable("TORCHDECK_SANDBOX_DIR");
    if (!torchdeck::testing::sandboxRunning())
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    QVERIFY(m_tmp.isValid());
}

ConnectionSettings TestConnection::settings() const
{
    ConnectionSettings s = torchdeck::testing::sandboxConnectionSettings();
    s.reconnectFirstDelayMs = 100;
    return s;
}

// The sshd processes under the sandbox's listener that serve connections, by pid. Only sshd itself: a dropped
// connection leaves the commands it started running, and killing one mid-way can strand a lock of the user's
// shell startup (pyenv's rehash lock stalls every later session for a minute).
static QSet<qint64> sshdSessions(const QString &sandboxDir)
{
    QFile pids(sandboxDir + QStringLiteral("/run/pids"));
    if (!pids.open(QIODevice::ReadOnly))
        return {};
    qint64 listener = 0;
    for (const QByteArray &line : pids.readAll().split('\n')) {
        if (line.startsWith("sshd "))
            listener = line.split(' ').value(1).toLongLong();
    }
    QSet<qint64> found;
    QList<qint64> parents{listener};
    while (!parents.isEmpty()) {
        const qint64 parent = parents.takeFirst();
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
            if (entry.toLongLong() <= 0 || !stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray text = stat.readAll();
            const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
            const QByteArray command = text.mid(text.indexOf('(') + 1, text.lastIndexOf(')') - text.indexOf('(') - 1);
            if (fields.value(1).toLongLong() == parent && command == "sshd") {
                found.insert(entry.toLongLong());
                parents.append(entry.toLongLong());
            }
        }
    }
    return found;
}

void TestConnection::append(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    QCOMPARE(file.write(bytes), bytes.size());
}

void TestConnection::runsCommandsConcurrently()
{
    Connection connection(settings());
    connection.open();
    QString error;
    QVERIFY2(waitConnected(connection, 10000, &error), qPrintable(error));

    // A slow command does not hold up a quick one: both share the session.
    RemoteCommand *slow = connection.run(QStringLiteral("sleep 1; echo slow"));
    QSignalSpy slowDone(slow, &RemoteCommand::finished);
    const ExecResult quick = runAndWait(connection, QStringLiteral("echo quick; echo oops >&2; exit 3"), 5000);
    QCOMPARE(quick.error, QString());
    QCOMPARE(quick.exitCode, 3);
    QCOMPARE(quick.out, QByteArray("quick\n"));
    QCOMPARE(quick.err, QByteArray("oops\n"));
    QCOMPARE(slowDone.count(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(slowDone.count(), 1, 5000);
    QCOMPARE(slowDone.first().first().value<ExecResult>().out, QByteArray("slow\n"));
}

void TestConnection::runsMoreCommandsThanTheServerHasChannels()
{
    Connection connection(settings());
    connection.open();
    QString error;
    QVERIFY2(waitConnected(connection, 10000, &error), qPrintable(error));
    // sshd allows 10 sessions per connection (MaxSessions): the rest wait for a channel instead of failing,
    // as a dashboard's log fetches and metrics reads once did under load.
    constexpr int count = 25;
    QList<ExecResult> results;
    for (int i = 0; i < count; ++i) {
        RemoteCommand *command = connection.run(QStringLiteral("sleep 0.3; echo %1").arg(i));
        connect(command, &RemoteCommand::finished, this, [&results](const ExecResult &r) { results.append(r); });
        connect(command, &RemoteCommand::failed, this, [&results](const QString &e) {
            ExecResult failed;
            failed.error = e;
            results.append(failed);
        });
    }
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), count, 30000);
    QStringList outputs;
    for (const ExecResult &result : std::as_const(results)) {
        QCOMPARE(result.error, QString());
        outputs.append(QString::fromUtf8(result.out.trimmed()));
    }
    for (int i = 0; i < count; ++i)
        QVERIFY2(outputs.contains(QString::number(i)), qPrintable(outputs.join(u' ')));
}

void TestConnection::refusesQuestionsWhenNotInteractive()
{
    ConnectionSettings unknownHost = settings();
    const QString config = m_tmp.filePath(QStringLiteral("config-unknown"));
    QFile original(m_sandboxDir + QStringLiteral("/ssh/config"));
    QVERIFY(original.open(QIODevice::ReadOnly));
    QByteArray text = original.readAll();
    const QByteArray knownHosts = QFile::encodeName(m_sandboxDir + QStringLiteral("/ssh/known_hosts"));
    text.replace(knownHosts, QFile::encodeName(m_tmp.filePath(QStringLiteral("known_hosts.fresh"))));
    QFile copy(config);
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(text);
    copy.close();
    unknownHost.sshConfigFile = config;

    Connection connection(unknownHost);
    QSignalSpy asked(&connection, &Connection::hostKeyConfirmationNeeded);
    connection.open();
    QString error;
    QVERIFY(!waitConnected(connection, 10000, &error));
    QVERIFY2(error.contains(QStringLiteral("is not known and was not accepted")), qPrintable(error));
    QCOMPARE(asked.count(), 0);

    Connection interactive(unknownHost);
    interactive.setInteractive(true);
    connect(&interactive, &Connection::hostKeyConfirmationNeeded, &interactive,
            [&](const HostKeyCheck &key) { interactive.answerHostKey(key.fingerprintSha256.startsWith(u"SHA256:")); });
    interactive.open();
    QVERIFY2(waitConnected(interactive, 10000, &error), qPrintable(error));
    QFile accepted(m_tmp.filePath(QStringLiteral("known_hosts.fresh")));
    QVERIFY(accepted.open(QIODevice::ReadOnly));
    QVERIFY(accepted.readAll().startsWith("[127.0.0.1]:")); // the ssh config does not ask for hashing
}

// HashKnownHosts yes in the ssh config: the accepted key is written with the host name hashed, as ssh does,
// and the next connection knows the host by it.
void TestConnection::acceptedHostKeysAreHashedWhenTheConfigSaysSo()
{
    const QString config = m_tmp.filePath(QStringLiteral("config-hashed"));
    const QString knownHosts = m_tmp.filePath(QStringLiteral("known_hosts.hashed"));
    QFile original(m_sandboxDir + QStringLiteral("/ssh/config"));
    QVERIFY(original.open(QIODevice::ReadOnly));
    QByteArray text = original.readAll();
    text.replace(QFile::encodeName(m_sandboxDir + QStringLiteral("/ssh/known_hosts")), QFile::encodeName(knownHosts));
    text.append("\nHost *\n    HashKnownHosts yes\n");
    QFile copy(config);
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(text);
    copy.close();
    ConnectionSettings hashed = settings();
    hashed.sshConfigFile = config;
    {
        Connection first(hashed);
        first.setInteractive(true);
        connect(&first, &Connection::hostKeyConfirmationNeeded, &first,
                [&](const HostKeyCheck &) { first.answerHostKey(true); });
        first.open();
        QString error;
        QVERIFY2(waitConnected(first, 10000, &error), qPrintable(error));
    }
    QFile written(knownHosts);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QByteArray line = written.readAll();
    QVERIFY2(line.startsWith("|1|") && !line.contains("127.0.0.1"), line.constData());
    Connection second(hashed); // not interactive: the host must be known now
    QSignalSpy asked(&second, &Connection::hostKeyConfirmationNeeded);
    second.open();
    QString error;
    QVERIFY2(waitConnected(second, 10000, &error), qPrintable(error));
    QCOMPARE(asked.count(), 0);
}

void TestConnection::tailDeliversAppendedBytesInOrder()
{
    const QString path = m_tmp.filePath(QStringLiteral("grow.log"));
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    RemoteTail *tail = connection.tail(path); // does not exist yet: the tail waits for it
    QByteArray received;
    qint64 expectedOffset = 0;
    connect(tail, &RemoteTail::data, this, [&](qint64 offset, const QByteArray &bytes) {
        QCOMPARE(offset, expectedOffset);
        expectedOffset += bytes.size();
        received += bytes;
    });
    QByteArray written;
    for (int i = 0; i < 50; ++i) {
        const QByteArray line = "line " + QByteArray::number(i) + (i % 7 ? "\n" : ""); // some lines torn
        append(path, line);
        written += line;
        QTest::qWait(5);
    }
    QTRY_COMPARE_WITH_TIMEOUT(received, written, 5000);
}

void TestConnection::tailStartsOverOnAReplacedFile_data()
{
    QTest::addColumn<bool>("rotated");
    QTest::addRow("truncated") << false; // shorter than what was read: found by its size
    QTest::addRow("rotated") << true;    // renamed as logrotate does, a longer new file: found by its first bytes
}

// The tail reports a reset once and reads the new file from its start; what the old file got after the rename
// is not mixed in.
void TestConnection::tailStartsOverOnAReplacedFile()
{
    QFETCH(bool, rotated);
    const QString path = m_tmp.filePath(QStringLiteral("replaced-%1.log").arg(rotated));
    append(path, "first attempt, a long line\n");
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    RemoteTail *tail = connection.tail(path);
    QByteArray received;
    QSignalSpy resets(tail, &RemoteTail::reset);
    connect(tail, &RemoteTail::reset, this, [&] { received.clear(); });
    connect(tail, &RemoteTail::data, this, [&](qint64, const QByteArray &bytes) { received += bytes; });
    QTRY_COMPARE_WITH_TIMEOUT(received, QByteArray("first attempt, a long line\n"), 5000);
    const QByteArray next = rotated ? QByteArray("new file, first line\nnew file, second line\n") : QByteArray("new\n");
    if (rotated) {
        QVERIFY(QFile::rename(path, path + QStringLiteral(".1")));
        append(path + QStringLiteral(".1"), "old file, one more line\n");
        append(path, next);
    } else {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(next);
        file.close();
    }
    QTRY_COMPARE_WITH_TIMEOUT(resets.count(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(received, next, 5000);
    append(path, "more\n");
    QTRY_COMPARE_WITH_TIMEOUT(received, next + "more\n", 5000);
    QCOMPARE(resets.count(), 1);
}

// tailEnd: the latest bytes of a long log, then what is appended, each byte once and in order.
void TestConnection::tailEndStartsNearTheEnd()
{
    const QString path = m_tmp.filePath(QStringLiteral("long.log"));
    QByteArray written;
    for (int i = 0; i < 1000; ++i)
        written += "line " + QByteArray::number(i) + '\n';
    append(path, written);
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    RemoteTail *tail = connection.tailEnd(path, 100);
    QByteArray received;
    qint64 first = -1;
    qint64 expected = -1;
    connect(tail, &RemoteTail::data, this, [&](qint64 offset, const QByteArray &bytes) {
        if (first < 0)
            first = expected = offset;
        QCOMPARE(offset, expected);
        expected += bytes.size();
        received += bytes;
    });
    QTRY_COMPARE_WITH_TIMEOUT(first, qint64(written.size() - 100), 5000);
    append(path, "line 1000\n");
    QTRY_COMPARE_WITH_TIMEOUT(received, written.right(100) + "line 1000\n", 5000);
}

void TestConnection::readFromReadsToTheEndOnce_data()
{
    QTest::addColumn<qint64>("size");   // the file's, -1: no file
    QTest::addColumn<qint64>("offset"); // where the read starts
    QTest::addRow("from the middle") << qint64(1000) << qint64(300);
    QTest::addRow("several chunks") << qint64(9) * 1024 * 1024 + 7 << qint64(5); // the worker reads 4 MiB a look
    QTest::addRow("at the end") << qint64(1000) << qint64(1000);
    QTest::addRow("shorter than the offset") << qint64(10) << qint64(1000); // as `tail -c +N`: nothing
    QTest::addRow("no file") << qint64(-1) << qint64(0);
}

void TestConnection::readFromReadsToTheEndOnce()
{
    QFETCH(qint64, size);
    QFETCH(qint64, offset);
    const QString path = m_tmp.filePath(QStringLiteral("read-%1-%2.bin").arg(size).arg(offset));
    QByteArray written;
    for (qint64 i = 0; i < size; ++i)
        written += char('a' + (i * 7919) % 26);
    if (size >= 0)
        append(path, written);
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    const qint64 commandsBefore = connection.load().commands;
    QPointer<RemoteTail> read = connection.readFrom(path, offset);
    QByteArray received;
    qint64 expected = offset;
    bool ended = false;
    QString error;
    connect(read, &RemoteTail::data, this, [&](qint64 at, const QByteArray &bytes) {
        QCOMPARE(at, expected);
        expected += bytes.size();
        received += bytes;
    });
    connect(read, &RemoteTail::ended, this, [&] { ended = true; });
    connect(read, &RemoteTail::failed, this, [&](const QString &why) { error = why; });
    QTRY_VERIFY_WITH_TIMEOUT(ended || !error.isEmpty(), 30000);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(received.size(), std::max<qint64>(0, size - offset));
    QVERIFY(received == written.mid(offset));
    QTRY_VERIFY(read.isNull()); // done: it deleted itself
    QCOMPARE(connection.load().commands, commandsBefore);
}

void TestConnection::readFromFailsWhenNotConnected()
{
    Connection connection(settings());
    RemoteTail *read = connection.readFrom(m_tmp.filePath(QStringLiteral("any")), 0);
    QString error;
    connect(read, &RemoteTail::failed, this, [&](const QString &why) { error = why; });
    QTRY_VERIFY_WITH_TIMEOUT(!error.isEmpty(), 5000);
    QVERIFY2(error.contains(QStringLiteral("not connected")), qPrintable(error));
}

void TestConnection::reconnectLosesAndDuplicatesNothing()
{
    const QString path = m_tmp.filePath(QStringLiteral("metrics.jsonl"));
    ConnectionSettings quick = settings();
    quick.answerTimeoutMs = 5000; // a kill that leaves the socket open is then found quickly too
    const QSet<qint64> others = sshdSessions(m_sandboxDir);
    Connection connection(quick);
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    const QSet<qint64> ours = sshdSessions(m_sandboxDir) - others;
    QVERIFY(!ours.isEmpty());
    QSignalSpy states(&connection, &Connection::stateChanged);
    RemoteTail *tail = connection.tail(path);
    QByteArray received;
    connect(tail, &RemoteTail::data, this, [&](qint64, const QByteArray &bytes) { received += bytes; });

    QByteArray written;
    for (int i = 0; i < 200; ++i) {
        const QByteArray line = R"({"v":1,"event":"step","step":)" + QByteArray::number(i) + "}\n";
        append(path, line);
        written += line;
        if (i == 80) { // kill every process serving this connection: the listener stays, the session dies
            for (const qint64 pid : ours)
                ::kill(static_cast<pid_t>(pid), SIGKILL);
        }
        QTest::qWait(5);
    }
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), written.size(), 30000);
    QCOMPARE(received, written);
    bool reconnected = false;
    for (const QList<QVariant> &change : states)
        reconnected |= change.first().value<ConnectionState>() == ConnectionState::Reconnecting;
    QVERIFY2(reconnected, "the connection never noticed it was killed");
    QCOMPARE(connection.state(), ConnectionState::Connected);
}

static QByteArray randomBytes(qint64 size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        bytes[i] = char((i * 2654435761u) >> 13);
    return bytes;
}

static QStringList partFiles(const QString &dir)
{
    return QDir(dir).entryList({QStringLiteral("*.part-*")}, QDir::Files);
}

// The server side of a connection stops answering (its sshd processes stopped with SIGSTOP, as a suspended
// laptop's link or a hung server looks): the command in flight fails within the keepalive and answer
// deadlines, the connection says Reconnecting, comes back by itself (the listening sshd still answers), and the
// caller's thread never waits meanwhile.
void TestConnection::aStalledLinkIsNoticedAndRecovered()
{
    ConnectionSettings quick = settings();
    quick.keepaliveMs = 2000;
    quick.answerTimeoutMs = 3000;
    const QSet<qint64> others = sshdSessions(m_sandboxDir);
    auto connection = std::make_unique<Connection>(quick);
    QSignalSpy states(connection.get(), &Connection::stateChanged);
    connection->open();
    QString error;
    QVERIFY2(waitConnected(*connection, 10000, &error), qPrintable(error));
    const QSet<qint64> ours = sshdSessions(m_sandboxDir) - others;
    QVERIFY(!ours.isEmpty());
    RemoteCommand *hung = connection->run(QStringLiteral("echo started; sleep 60; echo never"));
    QSignalSpy failed(hung, &RemoteCommand::failed);
    QSignalSpy output(hung, &RemoteCommand::output);
    bool interrupted = false; // read in the slot: the command deletes itself after it
    connect(hung, &RemoteCommand::failed, this, [&interrupted, hung] { interrupted = hung->wasInterrupted(); });
    QTRY_VERIFY_WITH_TIMEOUT(!output.isEmpty(), 10000); // it runs

    QSet<qint64> stopped;
    const auto resume = qScopeGuard([&stopped] { // even when a check fails: no sshd left stopped
        for (const qint64 pid : std::as_const(stopped))
            ::kill(pid_t(pid), SIGCONT);
    });
    for (const qint64 pid : ours) {
        if (::kill(pid_t(pid), SIGSTOP) == 0)
            stopped.insert(pid);
        else // a short-lived helper of the login (the pre-auth child) may be gone by now
            QCOMPARE(errno, ESRCH);
    }
    QVERIFY(!stopped.isEmpty());
    QElapsedTimer stalled;
    stalled.start();
    qint64 longestGapMs = 0;
    QElapsedTimer tick;
    tick.start();
    QTimer beat; // the caller's event loop keeps turning: nothing waits on the dead link
    connect(&beat, &QTimer::timeout, this, [&] { longestGapMs = std::max(longestGapMs, tick.restart()); });
    beat.start(50);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 15000);
    QVERIFY2(stalled.elapsed() < quick.keepaliveMs + quick.answerTimeoutMs + 3000,
             qPrintable(QString::number(stalled.elapsed())));
    QVERIFY(interrupted);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no answer")),
             qPrintable(failed.first().first().toString()));
    bool reconnecting = false;
    for (const QList<QVariant> &change : std::as_const(states))
        reconnecting |= change.first().value<ConnectionState>() == ConnectionState::Reconnecting;
    QVERIFY(reconnecting);
    QTRY_COMPARE_WITH_TIMEOUT(connection->state(), ConnectionState::Connected, 20000);
    QCOMPARE(runAndWait(*connection, QStringLiteral("echo back"), 10000).out, QByteArray("back\n"));
    beat.stop();
    QVERIFY2(longestGapMs < 1500, qPrintable(QString::number(longestGapMs)));

    // A connection whose worker is inside a blocking call on the dead link is dropped at once all the same.
    const QSet<qint64> second = sshdSessions(m_sandboxDir) - others - ours;
    for (const qint64 pid : second) {
        ::kill(pid_t(pid), SIGSTOP);
        stopped.insert(pid);
    }
    connection->run(QStringLiteral("true"));
    QTest::qWait(quick.keepaliveMs + 500); // the keepalive's round trip now blocks the worker
    QElapsedTimer closing;
    closing.start();
    connection.reset();
    QVERIFY2(closing.elapsed() < 500, qPrintable(QString::number(closing.elapsed())));
}

void TestConnection::uploadIsAtomicWithProgress()
{
    const QString local = m_tmp.filePath(QStringLiteral("upload-src.bin"));
    const QByteArray content = randomBytes(5 * 1024 * 1024 + 17);
    QFile source(local);
    QVERIFY(source.open(QIODevice::WriteOnly));
    source.write(content);
    source.close();
    const QString remoteDir = m_tmp.filePath(QStringLiteral("uploads"));
    QVERIFY(QDir().mkpath(remoteDir));
    const QString remote = remoteDir + QStringLiteral("/model.bin");
    QFile old(remote);
    QVERIFY(old.open(QIODevice::WriteOnly)); // an older file of that name is replaced
    old.write("old");
    old.close();

    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    RemoteUpload *upload = connection.upload(local, remote, 0640);
    QSignalSpy progress(upload, &RemoteUpload::progress);
    QSignalSpy finished(upload, &RemoteUpload::finished);
    QSignalSpy failed(upload, &RemoteUpload::failed);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 30000);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(finished.first().first().toLongLong(), content.size());
    QVERIFY(progress.count() >= 5);
    QCOMPARE(progress.last().at(0).toLongLong(), content.size());
    QFile uploaded(remote);
    QVERIFY(uploaded.open(QIODevice::ReadOnly));
    QVERIFY(uploaded.readAll() == content);
    QCOMPARE(uploaded.permissions() & (QFileDevice::ReadOther | QFileDevice::WriteGroup), QFileDevice::Permissions());
    QVERIFY(partFiles(remoteDir).isEmpty());
}

void TestConnection::stoppedUploadLeavesNothing()
{
    const QString local = m_tmp.filePath(QStringLiteral("upload-big.bin"));
    QFile source(local);
    QVERIFY(source.open(QIODevice::WriteOnly));
    source.write(randomBytes(32 * 1024 * 1024));
    source.close();
    const QString remoteDir = m_tmp.filePath(QStringLiteral("stopped"));
    QVERIFY(QDir().mkpath(remoteDir));
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    RemoteUpload *upload = connection.upload(local, remoteDir + QStringLiteral("/big.bin"));
    QSignalSpy failed(upload, &RemoteUpload::failed);
    connect(upload, &RemoteUpload::progress, upload, &RemoteUpload::stop);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("stopped")),
             qPrintable(failed.first().first().toString()));
    QVERIFY(QDir(remoteDir).isEmpty());
}

void TestConnection::uploadToAMissingDirectoryFails()
{
    const QString local = m_tmp.filePath(QStringLiteral("small.txt"));
    QFile source(local);
    QVERIFY(source.open(QIODevice::WriteOnly));
    source.write("x");
    source.close();
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    RemoteUpload *upload = connection.upload(local, QStringLiteral("/nonexistent-dir/x.txt"));
    QSignalSpy failed(upload, &RemoteUpload::failed);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("cannot create /nonexistent-dir/x.txt.part-")),
             qPrintable(failed.first().first().toString()));
    QCOMPARE(connection.state(), ConnectionState::Connected);
}

QTEST_GUILESS_MAIN(TestConnection)
#include "tst_connection.moc"
