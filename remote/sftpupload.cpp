#include "remote/sftpupload.h"

#include "remote/remotetr.h"
#include "remote/sftphandles.h"

#include <QFile>
#include <QRandomGenerator>
#include <fcntl.h>

namespace torchdeck::remote {

namespace {
constexpr qint64 chunkBytes = qint64(64) * 1024; // below OpenSSH sftp-server's 256 KiB packet limit

QString sftpError(sftp_session sftp, const QString &what)
{
    return Tr::tr("%1 (SFTP error %2: %3)")
        .arg(what)
        .arg(sftp_get_error(sftp))
        .arg(QString::fromUtf8(ssh_get_error(sftp->session))); // sftp_session_struct is public in 0.10
}
} // namespace

UploadResult uploadFile(sftp_session sftp, const QString &localPath, const QString &remotePath, int mode,
                        const std::function<bool(qint64, qint64)> &progress)
{
    UploadResult result;
    QFile local(localPath);
    if (!local.open(QIODevice::ReadOnly)) {
        result.error = Tr::tr("cannot read %1: %2").arg(localPath, local.errorString());
        return result;
    }
    const qint64 total = local.size();
    const QString partPath =
        remotePath + QStringLiteral(".part-%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    const QByteArray part = partPath.toUtf8();
    SftpFileHandle remote(sftp_open(sftp, part.constData(), O_WRONLY | O_CREAT | O_TRUNC, mode_t(mode)));
    if (!remote) {
        result.error = sftpError(sftp, Tr::tr("cannot create %1").arg(partPath));
        return result;
    }
    auto abandon = [&](const QString &error) {
        remote.reset();
        sftp_unlink(sftp, part.constData());
        result.error = error;
        return result;
    };
    QByteArray buffer(chunkBytes, Qt::Uninitialized);
    while (result.bytes < total) {
        const qint64 n = local.read(buffer.data(), chunkBytes);
        if (n <= 0)
            return abandon(Tr::tr("cannot read %1: %2").arg(localPath, local.errorString()));
        if (sftp_write(remote.get(), buffer.constData(), size_t(n)) != n)
            return abandon(sftpError(sftp, Tr::tr("writing %1 failed").arg(partPath)));
        result.bytes += n;
        if (progress && !progress(result.bytes, total))
            return abandon(Tr::tr("upload of %1 stopped").arg(localPath));
    }
    if (sftp_extension_supported(sftp, "fsync@openssh.com", "1"))
        sftp_fsync(remote.get());
    remote.reset();
    const QByteArray target = remotePath.toUtf8();
    // SFTP v3 rename refuses an existing target: replacing a file leaves it absent for a moment, which is
    // why deployments rename whole directories into place instead (see trainerdeployment).
    bool renamed = sftp_rename(sftp, part.constData(), target.constData()) == 0;
    if (!renamed && sftp_unlink(sftp, target.constData()) == 0)
        renamed = sftp_rename(sftp, part.constData(), target.constData()) == 0;
    if (!renamed) {
        const QString error = sftpError(sftp, Tr::tr("cannot rename %1 to %2").arg(partPath, remotePath));
        sftp_unlink(sftp, part.constData());
        result.error = error;
    }
    return result;
}

} // namespace torchdeck::remote
