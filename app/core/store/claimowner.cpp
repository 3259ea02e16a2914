#include "core/store/claimowner.h"

#include <QCoreApplication>
#include <QSysInfo>
#include <QUuid>
#include <cerrno>
#include <signal.h>

namespace torchdeck {

QString thisProcessClaimOwner()
{
    static const QString owner = QStringLiteral("%1:%2:%3")
                                     .arg(QSysInfo::machineHostName())
                                     .arg(QCoreApplication::applicationPid())
                                     .arg(QUuid::createUuid().toString(QUuid::Id128).left(8));
    return owner;
}

bool claimHolderGone(const QString &owner, const QString &thisHost, const std::function<bool(qint64 pid)> &runs)
{
    // From the right: a host name may hold a colon (an IPv6 literal), the pid and nonce cannot.
    const qsizetype nonce = owner.lastIndexOf(u':');
    const qsizetype pidStart = nonce > 0 ? owner.lastIndexOf(u':', nonce - 1) : -1;
    if (pidStart <= 0 || thisHost.isEmpty() || owner.left(pidStart) != thisHost)
        return false;
    bool ok = false;
    const qint64 pid = owner.mid(pidStart + 1, nonce - pidStart - 1).toLongLong(&ok);
    return ok && pid > 0 && !runs(pid);
}

bool claimHolderGone(const QString &owner)
{
    return claimHolderGone(owner, QSysInfo::machineHostName(), [](qint64 pid) {
        // EPERM: it runs, as another user's process.
        return ::kill(pid_t(pid), 0) == 0 || errno != ESRCH;
    });
}

} // namespace torchdeck
