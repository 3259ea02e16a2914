// The threaded Connection against the sandbox: async commands, tails, and a connection killed mid-tail.
#include "remote/connection.h"
#include "sandboxconnection.h"
#include "term/blocking.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck::remote;
using torchdeck::term::runAndWait;
using torchdeck::term::waitConnected;

class TestConnection : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void runsCommandsConcurrently();
    void runsMoreCommandsThanTheServerHasChannels();
    void refusesQuestionsWhenNotInteractive();
    void tailDeliversAppendedBytesInOrder();
    void tailSeesTruncation();
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

void TestConnection::tailSeesTruncation()
{
    const QString path = m_tmp.filePath(QStringLiteral("truncate.log"));
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
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("new\n");
    file.close();
    QTRY_COMPARE_WITH_TIMEOUT(resets.count(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(received, QByteArray("new\n"), 5000);
}

void TestConnection::reconnectLosesAndDuplicatesNothing()
{
    const QString path = m_tmp.filePath(QStringLiteral("metrics.jsonl"));
    Connection connection(settings());
    connection.open();
    QVERIFY(waitConnected(connection, 10000));
    QSignalSpy states(&connection, &Connection::stateChanged);
    RemoteTail *tail = connection.tail(path);
    QByteArray received;
    connect(tail, &RemoteTail::data, this, [&](qint64, const QByteArray &bytes) { received += bytes; });

    QByteArray written;
    const QString sshdPid = QString::fromUtf8([&] {
        QFile pids(m_sandboxDir + QStringLiteral("/run/pids"));
        pids.open(QIODevice::ReadOnly);
        for (const QByteArray &line : pids.readAll().split('\n'))
            if (line.startsWith("sshd "))
                return line.split(' ').value(1);
        return QByteArray();
    }());
    QVERIFY(!sshdPid.isEmpty());
    for (int i = 0; i < 200; ++i) {
        const QByteArray line = R"({"v":1,"event":"step","step":)" + QByteArray::number(i) + "}\n";
        append(path, line);
        written += line;
        if (i == 80) // kill this connection's sshd processes: the listener stays, the session dies
            QCOMPARE(QProcess::execute(QStringLiteral("pkill"), {QStringLiteral("-P"), sshdPid}), 0);
        QTest::qWait(5);
    }
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), written.size(), 15000);
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
