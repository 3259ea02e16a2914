// ConnectionWorker's downloads: a slice of each at a time, the event loop (commands, tails, keep-alives) between.
#include "remote/connectionworker.h"

namespace torchdeck::remote {

namespace {
constexpr qint64 sliceBytes = qint64(8) << 20; // about 50 ms on a fast link: tails and commands wait no longer
}

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
    m_downloads[id] = Download{std::move(transfer), std::move(cancelled)};
    QMetaObject::invokeMethod(
        this, [this, id] { continueDownload(id); }, Qt::QueuedConnection);
}

void ConnectionWorker::continueDownload(quint64 id)
{
    const auto it = m_downloads.find(id);
    if (it == m_downloads.end())
        return; // failed meanwhile with the connection
    SftpDownload &transfer = *it->second.transfer;
    if (*it->second.cancelled) {
        const qint64 done = transfer.done();
        m_downloads.erase(it);
        emit downloadFinished(id, done, tr("download stopped"));
        return;
    }
    QString error;
    const bool ok = transfer.step(sliceBytes, error);
    emit downloadProgress(id, transfer.done(), transfer.total());
    if (ok && !transfer.complete()) {
        QMetaObject::invokeMethod(
            this, [this, id] { continueDownload(id); }, Qt::QueuedConnection);
        return;
    }
    const qint64 done = transfer.done();
    m_downloads.erase(it);
    emit downloadFinished(id, done, error);
    if (!ok && !m_ssh.isConnected())
        connectionLost(error);
}

void ConnectionWorker::failDownloads(const QString &error)
{
    auto downloads = std::move(m_downloads);
    m_downloads.clear();
    for (auto &[id, download] : downloads) {
        const qint64 done = download.transfer->done();
        download.transfer.reset();
        emit downloadFinished(id, done, error);
    }
}

} // namespace torchdeck::remote
