#include "core/privatefiles.h"

#include "core/coretr.h"

#include <QDir>
#include <QFile>
#include <sys/stat.h>
#include <unistd.h>

namespace torchdeck {

QString makePrivateDirectory(const QString &path)
{
    if (!QDir().mkpath(path))
        return core::Tr::tr("cannot make the folder %1").arg(path);
    struct stat info {};
    const QByteArray native = QFile::encodeName(path);
    if (::lstat(native.constData(), &info) != 0 || !S_ISDIR(info.st_mode))
        return core::Tr::tr("%1 is not a folder").arg(path);
    if (info.st_uid != getuid())
        return core::Tr::tr("%1 belongs to another user").arg(path);
    if ((info.st_mode & S_ISVTX) != 0) // /tmp and its kind: shared by design, never narrowed
        return core::Tr::tr("%1 is a folder shared by all users: choose a folder of your own").arg(path);
    if ((info.st_mode & 0777) != 0700 && ::chmod(native.constData(), 0700) != 0)
        return core::Tr::tr("cannot make %1 private (mode 0700)").arg(path);
    return {};
}

QString makePrivateFile(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    struct stat info {};
    if (::stat(native.constData(), &info) != 0)
        return {}; // not there (yet): whoever makes it makes it private
    if ((info.st_mode & 0777) != 0600 && ::chmod(native.constData(), 0600) != 0)
        return core::Tr::tr("cannot make %1 private (mode 0600)").arg(path);
    return {};
}

} // namespace torchdeck
