#pragma once

#include <QString>
#include <functional>

typedef struct sftp_session_struct *sftp_session;

namespace torchdeck::remote {

struct UploadResult {
    qint64 bytes = 0;
    QString error; // empty on success
};

// Uploads a local file to remotePath over SFTP, atomically: it is written as "<remotePath>.part-<random>",
// fsync'ed where the server supports it, and renamed into place, so a reader never sees half a file and a
// broken upload leaves the old one intact. progress(done, total) returns false to stop.
UploadResult uploadFile(sftp_session sftp, const QString &localPath, const QString &remotePath, int mode,
                        const std::function<bool(qint64 done, qint64 total)> &progress);

} // namespace torchdeck::remote
