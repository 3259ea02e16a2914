// Prints remote figures on the sandbox: SFTP upload throughput against OpenSSH's sftp in the same run, and
// tail latency (a line appended to a file -> its bytes delivered by RemoteTail), p50 and p99, over the SFTP stream
// and through the login-node follower.
#include "remote/connection.h"
#include "remote/followerinstall.h"
#include "remotewait.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>

using namespace torchdeck::remote;
using torchdeck::testing::runAndWait;
using torchdeck::testing::waitConnected;

namespace {

constexpr qint64 uploadBytes = 64 * 1024 * 1024;
constexpr int latencySamples = 200;

// MiB/s of a transfer through the connection, from its start to its end.
double transferRate(RemoteTransfer *transfer, const QElapsedTimer &timer, const char *what)
{
    QEventLoop loop;
    QString error;
    QObject::connect(transfer, &RemoteTransfer::finished, &loop, &QEventLoop::quit);
    QObject::connect(transfer, &RemoteTransfer::failed, &loop, [&](const QString &e) {
        error = e;
        loop.quit();
    });
    loop.exec();
    if (!error.isEmpty())
        qFatal("%s failed: %s", what, qPrintable(error));
    return double(uploadBytes) / (1024.0 * 1024.0) / (double(timer.nsecsElapsed()) / 1e9);
}

double uploadWithTorchdeck(Connection &connection, const QString &local, const QString &remote)
{
    QElapsedTimer timer;
    timer.start();
    return transferRate(connection.upload(local, remote), timer, "upload");
}

// The download as `torchdeck pull` makes it (Connection::download, pipelined SFTP reads), without the checksums.
double downloadWithTorchdeck(Connection &connection, const QString &remote, const QString &local)
{
    QFile::remove(local);
    QElapsedTimer timer;
    timer.start();
    return transferRate(connection.download(remote, local, uploadBytes), timer, "download");
}

double downloadWithOpenSsh(const QString &sshConfig, const QString &remote, const QString &local)
{
    QFile::remove(local);
    QElapsedTimer timer;
    timer.start();
    QProcess sftp;
    sftp.start(QStringLiteral("sftp"), {QStringLiteral("-q"), QStringLiteral("-F"), sshConfig, QStringLiteral("-b"),
                                        QStringLiteral("-"), QStringLiteral("torchdeck-sandbox")});
    sftp.write(QStringLiteral("get %1 %2\n").arg(remote, local).toUtf8());
    sftp.closeWriteChannel();
    if (!sftp.waitForFinished(300000) || sftp.exitCode() != 0)
        qFatal("sftp failed: %s", sftp.readAllStandardError().constData());
    return double(uploadBytes) / (1024.0 * 1024.0) / (double(timer.nsecsElapsed()) / 1e9);
}

double uploadWithOpenSsh(const QString &sshConfig, const QString &local, const QString &remote)
{
    QElapsedTimer timer;
    timer.start();
    QProcess sftp;
    sftp.start(QStringLiteral("sftp"), {QStringLiteral("-q"), QStringLiteral("-F"), sshConfig, QStringLiteral("-b"),
                                        QStringLiteral("-"), QStringLiteral("torchdeck-sandbox")});
    sftp.write(QStringLiteral("put %1 %2\n").arg(local, remote).toUtf8());
    sftp.closeWriteChannel();
    if (!sftp.waitForFinished(300000) || sftp.exitCode() != 0)
        qFatal("sftp failed: %s", sftp.readAllStandardError().constData());
    return double(uploadBytes) / (1024.0 * 1024.0) / (double(timer.nsecsElapsed()) / 1e9);
}

void tailLatency(Connection &connection, const QString &path, const char *through)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    RemoteTail *tail = connection.tail(path);
    QList<qint64> latenciesUs;
    qint64 writtenAtUs = 0;
    QEventLoop loop;
    QObject::connect(tail, &RemoteTail::data, &loop, [&](qint64, const QByteArray &) {
        latenciesUs.append(QDateTime::currentMSecsSinceEpoch() * 1000 - writtenAtUs);
        loop.quit();
    });
    for (int i = 0; i < latencySamples; ++i) {
        QEventLoop pause; // irregular gaps, as a trainer's lines come
        QTimer::singleShot(20 + (i * 37) % 80, &pause, &QEventLoop::quit);
        pause.exec();
        writtenAtUs = QDateTime::currentMSecsSinceEpoch() * 1000;
        file.write(R"({"schema":1,"event":"step","step":)" + QByteArray::number(i) + "}\n");
        file.flush();
        QTimer timeout; // this line's: a single-shot left from an earlier one would end a later wait early
        timeout.setSingleShot(true);
        QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
        timeout.start(5000);
        loop.exec();
    }
    std::sort(latenciesUs.begin(), latenciesUs.end());
    const auto at = [&](double q) {
        return double(latenciesUs.at(qsizetype(q * double(latenciesUs.size() - 1)))) / 1000.0;
    };
    std::printf(
        "tail latency (%s), %lld lines: p50 %.1f ms, p99 %.1f ms, max %.1f ms (targets: p50 <= 10, p99 <= 50)\n",
        through, static_cast<long long>(latenciesUs.size()), at(0.5), at(0.99), at(1.0));
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QString sshConfig = qEnvironmentVariable("TORCHDECK_SSH_CONFIG");
    if (sshConfig.isEmpty())
        qFatal("run through scripts/bench-remote (it starts the sandbox and sets TORCHDECK_SSH_CONFIG)");
    QTemporaryDir dir;
    const QString local = dir.filePath(QStringLiteral("payload.bin"));
    QFile payload(local);
    if (!payload.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(local));
    QByteArray block(1024 * 1024, Qt::Uninitialized);
    for (qint64 written = 0; written < uploadBytes; written += block.size()) {
        for (qsizetype i = 0; i < block.size(); ++i)
            block[i] = char((written + i) * 2654435761u >> 11);
        payload.write(block);
    }
    payload.close();

    ConnectionSettings settings;
    settings.host = QStringLiteral("torchdeck-sandbox");
    settings.sshConfigFile = sshConfig;
    Connection connection(settings);
    connection.open();
    QString error;
    if (!waitConnected(connection, 10000, &error))
        qFatal("%s", qPrintable(error));

    // Alternate the two, twice, so neither profits from a warmer page cache alone.
    double ours = 0;
    double theirs = 0;
    for (int round = 0; round < 2; ++round) {
        theirs = std::max(theirs, uploadWithOpenSsh(sshConfig, local, dir.filePath(QStringLiteral("by-sftp.bin"))));
        ours = std::max(ours, uploadWithTorchdeck(connection, local, dir.filePath(QStringLiteral("by-torchdeck.bin"))));
    }
    std::printf("SFTP upload of 64 MiB: torchdeck %.0f MiB/s, OpenSSH sftp %.0f MiB/s, ratio %.2f (target >= 0.8)\n",
                ours, theirs, ours / theirs);
    // The file uploaded above, downloaded: three alternating rounds, the best of each (sftp starts its connection
    // anew each time, which counts against it: about 50 ms of 64 MiB at these rates, which the ratio notes).
    ours = 0;
    theirs = 0;
    const QString onCluster = dir.filePath(QStringLiteral("by-torchdeck.bin"));
    for (int round = 0; round < 3; ++round) {
        theirs =
            std::max(theirs, downloadWithOpenSsh(sshConfig, onCluster, dir.filePath(QStringLiteral("got-sftp.bin"))));
        ours = std::max(ours, downloadWithTorchdeck(connection, onCluster, dir.filePath(QStringLiteral("got-td.bin"))));
    }
    std::printf("SFTP download of 64 MiB: torchdeck %.0f MiB/s, OpenSSH sftp %.0f MiB/s, ratio %.2f (target >= 1)\n",
                ours, theirs, ours / theirs);
    tailLatency(connection, dir.filePath(QStringLiteral("sftp.jsonl")), "SFTP stream");

    const ExecResult installed = runAndWait(connection, followerInstallCommand(dir.path()), 120000);
    const FollowerForm form = followerFormFrom(dir.path(), installed.out);
    if (form.command.isEmpty())
        qFatal("the follower did not install: %s %s", qPrintable(installed.error), installed.err.constData());
    connection.setFollower(form.command, form.form);
    QElapsedTimer waited;
    waited.start();
    while (!connection.load().following.startsWith(QStringLiteral("login-node follower"))) {
        if (waited.hasExpired(30000))
            qFatal("the follower did not start: %s", qPrintable(connection.load().followerProblem));
        QEventLoop pause;
        QTimer::singleShot(20, &pause, &QEventLoop::quit);
        pause.exec();
    }
    tailLatency(connection, dir.filePath(QStringLiteral("followed.jsonl")), "login-node follower");
    return 0;
}
