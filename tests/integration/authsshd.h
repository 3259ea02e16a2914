#pragma once

// The extra sshd daemons of scripts/lib/auth-sshd (password, otp, jump), started by the ctest fixture.
#include "remote/connectionstate.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QString>
#include <algorithm>
#include <unistd.h>

namespace torchdeck::testing {

inline QString authSshdDir()
{
    return qEnvironmentVariable("TORCHDECK_AUTH_SSHD_DIR");
}

// Empty when the daemons run; else why the tests cannot run (the test skips with it).
inline QString authSshdMissing()
{
    if (geteuid() != 0)
        return QStringLiteral("the PAM sshd needs root: scripts/lib/auth-sshd writes "
                              "/etc/pam.d/torchdeck-sandbox-sshd-* (its PAM services)");
    if (authSshdDir().isEmpty() || !QFile::exists(authSshdDir() + QStringLiteral("/pids")))
        return QStringLiteral("scripts/lib/auth-sshd is not running (run through ctest, which starts it)");
    return {};
}

inline QByteArray authSshdFile(const QString &name)
{
    QFile file(authSshdDir() + u'/' + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
}

inline remote::ConnectionSettings authSshdSettings(const QString &host)
{
    remote::ConnectionSettings settings;
    settings.host = host;
    settings.sshConfigFile = authSshdDir() + QStringLiteral("/ssh_config");
    settings.reconnectAttempts = 0;
    return settings;
}

// The TOTP code (RFC 6238, 30 s steps, 6 digits) of the otp daemon's key for a step, by oathtool.
inline QString totpCode(qint64 step)
{
    QProcess oathtool;
    oathtool.start(QStringLiteral("oathtool"), {QStringLiteral("--totp"), QStringLiteral("--now=@%1").arg(step * 30),
                                                QString::fromLatin1(authSshdFile(QStringLiteral("otp.key")))});
    oathtool.waitForFinished();
    return QString::fromLatin1(oathtool.readAllStandardOutput().trimmed());
}

inline qint64 currentTotpStep()
{
    return QDateTime::currentSecsSinceEpoch() / 30;
}

// pam_oath refuses a code of a step at or before the last one used, whose code it keeps in users.oath (6th
// field); its window (auth-sshd: 10 steps either side) lets a test log in again with a later step's code.
inline qint64 nextUnusedTotpStep()
{
    constexpr qint64 window = 10;
    const qint64 now = currentTotpStep();
    const QList<QByteArray> fields = authSshdFile(QStringLiteral("users.oath")).simplified().split(' ');
    const QString lastCode = fields.size() > 5 ? QString::fromLatin1(fields.at(5)) : QString();
    qint64 next = now;
    for (qint64 step = now - window; !lastCode.isEmpty() && step <= now + window; ++step) {
        if (totpCode(step) == lastCode)
            next = std::max(next, step + 1);
    }
    return next;
}

} // namespace torchdeck::testing
