#include "remote/followerinstall.h"

#include "core/shellquote.h"

#include <QCryptographicHash>
#include <QFile>

namespace torchdeck::remote {

namespace {
QByteArray source(const QString &name)
{
    QFile file(QStringLiteral(":/remote/follower/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("torchdeck was built without the follower's %s", qPrintable(name)); // a build error, not a user's
    return file.readAll();
}

// Both sources and the name of their directory, read and hashed once.
struct Sources {
    QByteArray compiled = source(QStringLiteral("torchdeck-follow.c"));
    QByteArray shell = source(QStringLiteral("torchdeck-follow.sh"));
    QString hash = QString::fromLatin1(
        QCryptographicHash::hash(QByteArray(compiled + shell), QCryptographicHash::Sha256).toHex().left(16));
};

const Sources &sources()
{
    static const Sources read;
    return read;
}

QString directoryOf(const QString &workDirectory)
{
    return workDirectory + QStringLiteral("/follower/") + sources().hash;
}

// A quoted here-document: the shell expands nothing in it.
QString hereDocument(const QString &file, const QByteArray &text, const QString &end)
{
    return QStringLiteral("cat > %1 <<'%2'\n%3%4%2\n")
        .arg(file, end, QString::fromUtf8(text), text.endsWith('\n') ? QString() : QStringLiteral("\n"));
}
} // namespace

QString followerInstallCommand(const QString &workDirectory)
{
    const QString d = shellQuote(directoryOf(workDirectory));
    // Compiled to a name of its own, then moved: two agents installing at once never run a half-written binary.
    return QStringLiteral("d=%1\n"
                          "mkdir -p \"$d\" || exit 1\n"
                          "if [ -x \"$d/torchdeck-follow\" ]; then echo compiled; exit 0; fi\n")
               .arg(d) +
           hereDocument(QStringLiteral("\"$d/torchdeck-follow.sh\""), sources().shell,
                        QStringLiteral("TORCHDECK_FOLLOW_SH")) +
           hereDocument(QStringLiteral("\"$d/torchdeck-follow.c\""), sources().compiled,
                        QStringLiteral("TORCHDECK_FOLLOW_C")) +
           QStringLiteral("for c in cc gcc clang; do\n"
                          "  command -v \"$c\" >/dev/null 2>&1 || continue\n"
                          "  if \"$c\" -O2 -o \"$d/torchdeck-follow.$$\" \"$d/torchdeck-follow.c\" "
                          "2>\"$d/compile.log\"; then\n"
                          "    mv -f \"$d/torchdeck-follow.$$\" \"$d/torchdeck-follow\" && echo compiled && exit 0\n"
                          "  fi\n"
                          "done\n"
                          "rm -f \"$d/torchdeck-follow.$$\"\n"
                          "command -v bash >/dev/null 2>&1 && echo shell\n");
}

FollowerForm followerFormFrom(const QString &workDirectory, const QByteArray &out)
{
    const QString d = shellQuote(directoryOf(workDirectory));
    const QByteArray said = out.trimmed();
    if (said == "compiled")
        return {QStringLiteral("exec %1/torchdeck-follow %2").arg(d).arg(followerHeartbeatMs()),
                QStringLiteral("compiled")};
    if (said == "shell")
        return {QStringLiteral("exec bash %1/torchdeck-follow.sh %2").arg(d).arg(followerHeartbeatMs()),
                QStringLiteral("shell")};
    return {};
}

int followerHeartbeatMs()
{
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("TORCHDECK_FOLLOWER_HEARTBEAT_MS", &ok);
    return ok && ms > 0 ? ms : 10000;
}

int followerSilentAfterMs()
{
    return 3 * followerHeartbeatMs() + 2000; // three heartbeats missed, and a loaded login node's slack
}

} // namespace torchdeck::remote
