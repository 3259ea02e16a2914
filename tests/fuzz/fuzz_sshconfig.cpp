// libFuzzer: an ssh config (the user's file, and what it Includes: here, itself). No crash, no sanitizer
// report, and reading ends (an Include of itself is read once).
#include "core/sshconfigparser.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using namespace torchdeck;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("config"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return 0;
    file.write(reinterpret_cast<const char *>(data), qint64(size));
    file.close();
    const SshConfig config = readSshConfig(path, dir.path());
    for (const QString &alias : config.hostAliases())
        config.resolve(alias);
    config.resolve(QStringLiteral("any.host"));
    return 0;
}
