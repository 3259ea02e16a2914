#include "core/code/trainerbundle.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>

namespace torchdeck {

namespace {
const QString resourceRoot = QStringLiteral(":/trainer/");
constexpr int hashHexDigits = 16;
} // namespace

qint64 TrainerBundle::totalBytes() const
{
    qint64 total = 0;
    for (const File &file : files)
        total += file.content.size();
    return total;
}

TrainerBundle TrainerBundle::embedded()
{
    TrainerBundle bundle;
    QDirIterator it(resourceRoot, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            bundle.files.append({path.mid(resourceRoot.size()), file.readAll()});
    }
    std::sort(bundle.files.begin(), bundle.files.end(),
              [](const File &a, const File &b) { return a.relativePath < b.relativePath; });
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const File &file : std::as_const(bundle.files)) {
        // Length-prefixed, so moving bytes between a path and a file cannot give the same hash.
        const QByteArray path = file.relativePath.toUtf8();
        const QByteArray header =
            QByteArray::number(path.size()) + ':' + path + QByteArray::number(file.content.size()) + ':';
        hash.addData(header);
        hash.addData(file.content);
    }
    bundle.hash = QString::fromLatin1(hash.result().toHex().left(hashHexDigits));
    return bundle;
}

QString embeddedTrainerHash()
{
    static const QString hash = TrainerBundle::embedded().hash;
    return hash;
}

} // namespace torchdeck
