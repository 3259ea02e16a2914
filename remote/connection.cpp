#include "remote/connection.h"

#include "remote/connectionworker.h"
#include "remote/pendinganswer.h"

#include <QDeadlineTimer>
#include <QTemporaryFile>

namespace torchdeck::remote {

namespace {
const QString hostKeyAccepted = QStringLiteral("yes");

// Runs `handler` in the inbox's thread with the arguments of the worker's `signal`: the signal is handled in
// the worker's own thread (context: the worker), and its arguments are copied into the posted call.
template <typename Signal, typename Handler>
void relay(ConnectionWorker *worker, Signal signal, const CallQueue::Sender &inbox, Handler handler)
{
    QObject::connect(worker, signal, worker,
                     [inbox, handler](const auto &...args) { inbox.post([handler, args...] { handler(args...); }); });
}
} // namespace

Connection::Connection(ConnectionSettings settings, QObject *parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_hostKeyAnswer(std::make_shared<PendingAnswer>())
    , m_credentialAnswer(std::make_shared<PendingAnswer>())
{
    qRegisterMetaType<ExecResult>();
    qRegisterMetaType<HostKeyCheck>();
    qRegisterMetaType<CredentialPrompt>();
    qRegisterMetaType<ConnectionState>();
    m_inbox->setParent(this);
    const CallQueue::Sender inbox = m_inbox->sender();
    // Calls through the inbox run in this thread only while this object (their queue's parent) lives.
    // These two run in the worker thread: they hand the question to this thread and wait for the answer.
    auto askHostKey = [this, inbox, interactive = m_interactive, answer = m_hostKeyAnswer](const HostKeyCheck &key) {
        if (!*interactive)
            return false;
        inbox.post([this, key] { emit hostKeyConfirmationNeeded(key); });
        return answer->wait() == hostKeyAccepted;
    };
    auto askCredential = [this, inbox, answer = m_credentialAnswer](const CredentialPrompt &prompt) {
        inbox.post([this, prompt] { emit credentialNeeded(prompt); });
        return answer->wait();
    };
    m_worker = new ConnectionWorker(m_settings, askHostKey, askCredential, m_interactive);
    m_worker->countSftpRequestsIn(m_sftpRequests);
    auto *workerInbox = new CallQueue;
    workerInbox->setParent(m_worker); // moves to the thread with it, and is deleted with it
    m_toWorker = workerInbox->sender();
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);

    relay(m_worker, &ConnectionWorker::stateChanged, inbox, [this](ConnectionState state, const QString &detail) {
        m_state = state;
        m_lastDetail = detail;
        emit stateChanged(state, detail);
    });
    relay(m_worker, &ConnectionWorker::commandOutput, inbox, [this](quint64 id, const QByteArray &data, bool err) {
        if (RemoteCommand *command = m_commands.value(id))
            emit command->output(data, err);
    });
    relay(m_worker, &ConnectionWorker::commandFinished, inbox, [this](quint64 id, const ExecResult &result) {
        RemoteCommand *command = m_commands.take(id);
        if (!command)
            return;
        command->m_interrupted = result.interrupted;
        m_load.bytesIn += result.out.size() + result.err.size();
        if (result.error.isEmpty())
            emit command->finished(result);
        else
            emit command->failed(result.error);
        command->deleteLater();
    });
    relay(m_worker, &ConnectionWorker::tailData, inbox, [this](quint64 id, qint64 offset, const QByteArray &bytes) {
        m_load.bytesIn += bytes.size();
        if (RemoteTail *tail = m_tails.value(id))
            emit tail->data(offset, bytes);
    });
    relay(m_worker, &ConnectionWorker::tailReset, inbox, [this](quint64 id, const QString &reason) {
        if (RemoteTail *tail = m_tails.value(id))
            emit tail->reset(reason);
    });
    relay(m_worker, &ConnectionWorker::tailFailed, inbox, [this](quint64 id, const QString &error) {
        if (RemoteTail *tail = m_tails.take(id))
            emit tail->failed(error);
    });
    relay(m_worker, &ConnectionWorker::tailEnded, inbox, [this](quint64 id) {
        if (RemoteTail *tail = m_tails.take(id)) {
            emit tail->ended();
            tail->deleteLater();
        }
    });
    // Uploads and downloads are transfers alike, in one table (their ids are the connection's).
    const auto progress = [this](quint64 id, qint64 done, qint64 total) {
        if (RemoteTransfer *transfer = m_transfers.value(id))
            emit transfer->progress(done, total);
    };
    const auto finished = [this](quint64 id, qint64 bytes, const QString &error) {
        RemoteTransfer *transfer = m_transfers.take(id);
        if (!transfer)
            return;
        if (error.isEmpty())
            emit transfer->finished(bytes);
        else
            emit transfer->failed(error);
        transfer->deleteLater();
    };
    relay(m_worker, &ConnectionWorker::uploadProgress, inbox, progress);
    relay(m_worker, &ConnectionWorker::uploadFinished, inbox, finished);
    relay(m_worker, &ConnectionWorker::downloadProgress, inbox, progress);
    relay(m_worker, &ConnectionWorker::downloadFinished, inbox, finished);
    relay(m_worker, &ConnectionWorker::followingChanged, inbox,
          [this](const QString &following, const QString &problem) {
              m_load.following = following;
              m_load.followerProblem = problem;
          });
    relay(m_worker, &ConnectionWorker::tunnelOpened, inbox, [this](quint64 id) {
        if (RemoteTunnel *tunnel = m_tunnels.value(id))
            emit tunnel->opened();
    });
    relay(m_worker, &ConnectionWorker::tunnelData, inbox, [this](quint64 id, const QByteArray &bytes) {
        if (RemoteTunnel *tunnel = m_tunnels.value(id))
            emit tunnel->data(bytes);
    });
    relay(m_worker, &ConnectionWorker::tunnelExited, inbox, [this](quint64 id, int exitStatus) {
        if (RemoteTunnel *tunnel = m_tunnels.value(id))
            emit tunnel->exited(exitStatus);
    });
    relay(m_worker, &ConnectionWorker::tunnelClosed, inbox, [this](quint64 id, const QString &error) {
        if (RemoteTunnel *tunnel = m_tunnels.take(id)) {
            emit tunnel->closed(error);
            tunnel->deleteLater();
        }
    });
    m_thread->setObjectName(QStringLiteral("ssh:") + m_settings.host);
    m_thread->start();
}

Connection::~Connection()
{
    m_hostKeyAnswer->cancel();
    m_credentialAnswer->cancel();
    m_toWorker.post([worker = m_worker] { worker->close(); });
    m_thread->quit();
    // A moment for a worker that is free to close the connection cleanly (before a process that ends now
    // tears libssh down under it); one inside a blocking libssh call on a dead link (up to answerTimeoutMs) is
    // not waited for: it closes when it gets there, and its thread and it are deleted then.
    constexpr int closeWaitMs = 250;
    if (m_thread->wait(QDeadlineTimer(closeWaitMs)))
        delete m_thread;
}

void Connection::open()
{
    m_toWorker.post([worker = m_worker] { worker->open(); });
}

void Connection::close()
{
    m_toWorker.post([worker = m_worker] { worker->close(); });
}

RemoteCommand *Connection::run(const QString &command, int deadlineMs)
{
    const quint64 id = m_nextId++;
    ++m_load.commands;
    auto *operation = new RemoteCommand(this, id);
    m_commands.insert(id, operation);
    m_toWorker.post([worker = m_worker, id, command, deadlineMs] { worker->startCommand(id, command, deadlineMs); });
    return operation;
}

void Connection::setFollower(const QString &command, const QString &form)
{
    m_toWorker.post([worker = m_worker, command, form] { worker->setFollower(command, form); });
}

ConnectionLoad Connection::load() const
{
    ConnectionLoad load = m_load;
    load.sftpRequests = m_sftpRequests->load();
    return load;
}

RemoteTail *Connection::tail(const QString &path, qint64 offset, std::optional<TailPace> pace)
{
    return startTail(SftpTail(path, offset), pace.value_or(m_settings.tailPace));
}

RemoteTail *Connection::tailEnd(const QString &path, qint64 lastBytes)
{
    return startTail(SftpTail::lastBytesOf(path, lastBytes), m_settings.tailPace);
}

RemoteTail *Connection::readFrom(const QString &path, qint64 offset)
{
    return startTail(SftpTail(path, offset), m_settings.tailPace, true);
}

RemoteTail *Connection::startTail(const SftpTail &tail, TailPace pace, bool once)
{
    const quint64 id = m_nextId++;
    auto *operation = new RemoteTail(this, id);
    m_tails.insert(id, operation);
    m_toWorker.post([worker = m_worker, id, tail, pace, once] { worker->startTail(id, tail, pace, once); });
    return operation;
}

RemoteTunnel *Connection::terminal(const QString &command, int cols, int rows, const QString &term)
{
    const quint64 id = m_nextId++;
    auto *operation = new RemoteTunnel(this, id);
    m_tunnels.insert(id, operation);
    m_toWorker.post(
        [worker = m_worker, id, command, term, cols, rows] { worker->startTerminal(id, command, term, cols, rows); });
    return operation;
}

void Connection::resizeTerminal(quint64 id, int cols, int rows)
{
    m_toWorker.post([worker = m_worker, id, cols, rows] { worker->resizeTerminal(id, cols, rows); });
}

RemoteTunnel *Connection::tunnel(const QString &host, int port)
{
    const quint64 id = m_nextId++;
    auto *operation = new RemoteTunnel(this, id);
    m_tunnels.insert(id, operation);
    m_toWorker.post([worker = m_worker, id, host, port] { worker->startTunnel(id, host, port); });
    return operation;
}

RemoteUpload *Connection::upload(const QString &localPath, const QString &remotePath, int mode)
{
    const quint64 id = m_nextId++;
    auto *operation = new RemoteUpload(this);
    m_transfers.insert(id, operation);
    m_toWorker.post([worker = m_worker, id, localPath, remotePath, mode, cancelled = operation->m_cancelled] {
        worker->startUpload(id, localPath, remotePath, mode, cancelled);
    });
    return operation;
}

RemoteDownload *Connection::download(const QString &remotePath, const QString &localPath, qint64 bytes)
{
    const quint64 id = m_nextId++;
    auto *operation = new RemoteDownload(this);
    m_transfers.insert(id, operation);
    m_toWorker.post([worker = m_worker, id, remotePath, localPath, bytes, cancelled = operation->m_cancelled] {
        worker->startDownload(id, remotePath, localPath, bytes, cancelled);
    });
    return operation;
}

RemoteUpload *Connection::uploadData(const QByteArray &data, const QString &remotePath, int mode)
{
    auto *local = new QTemporaryFile(this);
    if (!local->open() || local->write(data) != data.size() || !local->flush()) {
        // Fail through the same signal as any other upload, after the caller has connected to it.
        auto *operation = new RemoteUpload(this);
        const QString error = tr("cannot write a temporary file for %1: %2").arg(remotePath, local->errorString());
        QMetaObject::invokeMethod(
            operation,
            [operation, error] {
                emit operation->failed(error);
                operation->deleteLater();
            },
            Qt::QueuedConnection);
        local->deleteLater();
        return operation;
    }
    RemoteUpload *operation = upload(local->fileName(), remotePath, mode);
    connect(operation, &QObject::destroyed, local, &QObject::deleteLater);
    return operation;
}

void Connection::stopCommand(quint64 id)
{
    m_toWorker.post([worker = m_worker, id] { worker->stopCommand(id); });
}

void Connection::setTailPace(quint64 id, TailPace pace)
{
    m_toWorker.post([worker = m_worker, id, pace] { worker->setTailPace(id, pace); });
}

void Connection::stopTail(quint64 id)
{
    if (RemoteTail *tail = m_tails.take(id))
        tail->deleteLater();
    m_toWorker.post([worker = m_worker, id] { worker->stopTail(id); });
}

void Connection::writeTunnel(quint64 id, const QByteArray &data)
{
    m_toWorker.post([worker = m_worker, id, data] { worker->writeTunnel(id, data); });
}

void Connection::stopTunnel(quint64 id)
{
    if (RemoteTunnel *tunnel = m_tunnels.take(id))
        tunnel->deleteLater();
    m_toWorker.post([worker = m_worker, id] { worker->stopTunnel(id); });
}

void Connection::answerHostKey(bool trust)
{
    m_hostKeyAnswer->answer(trust ? std::optional<QString>(hostKeyAccepted) : std::nullopt);
}

void Connection::answerCredential(std::optional<QString> answer)
{
    m_credentialAnswer->answer(std::move(answer));
}

RemoteCommand::RemoteCommand(Connection *connection, quint64 id)
    : QObject(connection)
    , m_connection(connection)
    , m_id(id)
{
}

void RemoteCommand::stop()
{
    m_connection->stopCommand(m_id);
}

RemoteTail::RemoteTail(Connection *connection, quint64 id)
    : QObject(connection)
    , m_connection(connection)
    , m_id(id)
{
}

void RemoteTail::stop()
{
    m_connection->stopTail(m_id);
}

void RemoteTail::setPace(TailPace pace)
{
    m_connection->setTailPace(m_id, pace);
}

RemoteTunnel::RemoteTunnel(Connection *connection, quint64 id)
    : QObject(connection)
    , m_connection(connection)
    , m_id(id)
{
}

void RemoteTunnel::write(const QByteArray &data)
{
    m_connection->writeTunnel(m_id, data);
}

void RemoteTunnel::stop()
{
    m_connection->stopTunnel(m_id);
}

void RemoteTunnel::resize(int cols, int rows)
{
    m_connection->resizeTerminal(m_id, cols, rows);
}

} // namespace torchdeck::remote
