// ConnectionWorker's downloads: a slice of each at a time, the event loop (commands, tails, keep-alives) between.
#include "remote/connectionworker.h"

#include <QDateTime>

namespace torchdeck::remote {

namespace {
constexpr qint64 sliceBytes = qint64(8) << 20; // about 50 ms on a fast link: tails and commands wait no longer
constexpr int answerWaitMs = 5; // the longest a step waits for answers before the worker's other work goes on

// A download whose server sends nothing for this long is given up (the same pull goes on from its part later, over
// a new SFTP channel): 60 s, or TORCHDECK_SFTP_STALL_MS (tests).
qint64 stallMs()
{
    static const qint64 ms = [] {
        bool ok = false;
        const int value = qEnvironmentVariableIntValue("TORCHDECK_SFTP_STALL_MS", &ok);
        return ok && value > 0 ? qint64(value) : qint64(60000);
    }();
    return ms;
}
} // namespace

void ConnectionWorker::startDownload(quint64 id, const QString &remotePath, const QString &localPath, qint64 bytes,
                                     std::shared_ptr<std::atomic<bool>> cancelled)
{
    QString error;
    const sftp_session session = m_state == ConnectionState::Connected ? sftp(error) : nullptr;
    if (!session) {
        emit downloadFinished(id, 0, error.isEmpty() ? tr("not connected to %1").arg(m_settings.host) : error);
        return;
    }
    auto transfer = std::make_unique<SftpDownload>(session, remotePath, localPath, bytes);
    error = transfer->open();
    if (!error.isEmpty()) {
        emit downloadFinished(id, 0, error);
        return;
    }
    emit downloadProgress(id, transfer->done(), transfer->total());
    m_downloads[id] = Download{std::move(transfer), std::move(cancelled), QDateTime::currentMSecsSinceEpoch()};
    QMetaObject::invokeMethod(
        this, [this, id] { continueDownload(id); }, Qt::QueuedConnection);
}

void ConnectionWorker::continueDownload(quint64 id)
{
    const auto it = m_downloads.find(id);
    if (it == m_downloads.end())
        return; // failed meanwhile with the connection
    Download &download = it->second;
    if (*download.cancelled)
        return endDownload(id, tr("download stopped"));
    QString error;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    switch (download.transfer->step(sliceBytes, answerWaitMs, error)) {
    case SftpDownload::Step::Moved:
        download.movedMs = now;
        emit downloadProgress(id, download.transfer->done(), download.transfer->total());
        if (download.transfer->complete())
            return endDownload(id, {});
        QMetaObject::invokeMethod(
            this, [this, id] { continueDownload(id); }, Qt::QueuedConnection);
        return;
    case SftpDownload::Step::Waiting:
        if (now - download.movedMs > stallMs())
            return endDownload(id, tr("the SFTP server of %1 sent nothing for %2 s (stopped? overloaded?)")
                                       .arg(m_settings.host)
                                       .arg(stallMs() / 1000));
        QMetaObject::invokeMethod(
            this, [this, id] { continueDownload(id); }, Qt::QueuedConnection);
        return;
    case SftpDownload::Step::Failed:
        endDownload(id, error);
        if (!m_ssh.isConnected())
            connectionLost(error);
        return;
    }
}

void ConnectionWorker::endDownload(quint64 id, const QString &error)
{
    const auto it = m_downloads.find(id);
    const qint64 done = it->second.transfer->done();
    const bool stale = it->second.transfer->hasRequestsInFlight();
    if (stale)
        it->second.transfer->abandon();
    m_downloads.erase(it);
    // Answers to the abandoned requests would pile up in the session unread: a new SFTP channel next time.
    if (stale && m_downloads.empty())
        m_sftp.reset();
    emit downloadFinished(id, done, error);
}

void ConnectionWorker::failDownloads(const QString &error)
{
    auto downloads = std::move(m_downloads);
    m_downloads.clear();
    for (auto &[id, download] : downloads) {
        const qint64 done = download.transfer->done();
        download.transfer->abandon(); // the session goes: nothing to close on it
        download.transfer.reset();
        emit downloadFinished(id, done, error);
    }
}

} // namespace torchdeck::remote
