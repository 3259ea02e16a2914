#include "core/sshconfig.h"

#include <QDir>
#include <QMessageAuthenticationCode>
#include <QRegularExpression>
#include <algorithm>

namespace torchdeck {

namespace {

bool isWildcard(const QString &pattern)
{
    return pattern.contains(u'*') || pattern.contains(u'?') || pattern.startsWith(u'!');
}

QString expandPath(QString path, const SshHost &host)
{
    if (path == u'~' || path.startsWith(QStringLiteral("~/")))
        path = QDir::homePath() + path.mid(1);
    path.replace(QStringLiteral("%d"), QDir::homePath());
    path.replace(QStringLiteral("%h"), host.hostName);
    path.replace(QStringLiteral("%r"), host.user);
    path.replace(QStringLiteral("%n"), host.alias);
    return path;
}

QString currentUser()
{
    const QString user = qEnvironmentVariable("USER");
    return user.isEmpty() ? qEnvironmentVariable("LOGNAME") : user;
}

} // namespace

bool sshHostMatches(const QStringList &patterns, const QString &host)
{
    if (patterns.isEmpty())
        return true;
    bool matched = false;
    for (const QString &pattern : patterns) {
        const bool negated = pattern.startsWith(u'!');
        const QString glob = negated ? pattern.mid(1) : pattern;
        // Host names hold no '/', so Qt's path-aware (and anchored) conversion matches ssh's globbing.
        const QRegularExpression re(QRegularExpression::wildcardToRegularExpression(glob));
        if (re.match(host).hasMatch()) {
            if (negated)
                return false;
            matched = true;
        }
    }
    return matched;
}

QStringList SshConfig::hostAliases() const
{
    QStringList aliases;
    for (const SshConfigBlock &block : blocks) {
        for (const QString &pattern : block.patterns) {
            if (!isWildcard(pattern) && !aliases.contains(pattern))
                aliases.append(pattern);
        }
    }
    return aliases;
}

QString hashedKnownHostName(const QString &host, const QByteArray &salt)
{
    const QByteArray mac = QMessageAuthenticationCode::hash(host.toUtf8(), salt, QCryptographicHash::Sha1);
    return QStringLiteral("|1|%1|%2").arg(QString::fromLatin1(salt.toBase64()), QString::fromLatin1(mac.toBase64()));
}

bool SshConfig::names(const QString &host) const
{
    for (const SshConfigBlock &block : blocks) {
        const bool catchAll =
            std::all_of(block.patterns.cbegin(), block.patterns.cend(), [](const QString &p) { return p == u"*"; });
        if (!block.patterns.isEmpty() && !catchAll && sshHostMatches(block.patterns, host))
            return true;
    }
    return false;
}

SshHost SshConfig::resolve(const QString &alias) const
{
    SshHost host;
    host.alias = alias;
    bool portSet = false;
    bool hashSet = false;
    QString userKnownHosts;
    for (const SshConfigBlock &block : blocks) {
        if (!sshHostMatches(block.patterns, alias))
            continue;
        for (const auto &[keyword, value] : block.options) {
            if (keyword == u"hostname" && host.hostName.isEmpty()) {
                host.hostName = value;
            } else if (keyword == u"port" && !portSet) {
                bool ok = false;
                const int port = value.toInt(&ok);
                if (ok && port > 0 && port < 65536)
                    host.port = port;
                portSet = true;
            } else if (keyword == u"user" && host.user.isEmpty()) {
                host.user = value;
            } else if (keyword == u"identityfile") {
                host.identityFiles.append(value); // ssh tries every IdentityFile, in order
            } else if (keyword == u"proxyjump" && host.proxyJump.isEmpty()) {
                host.proxyJump = value;
            } else if (keyword == u"userknownhostsfile" && userKnownHosts.isEmpty()) {
                userKnownHosts = value.section(u' ', 0, 0);
            } else if (keyword == u"hashknownhosts" && !hashSet) {
                host.hashKnownHosts = value.compare(u"yes", Qt::CaseInsensitive) == 0;
                hashSet = true;
            }
        }
    }
    if (host.hostName.isEmpty())
        host.hostName = alias;
    host.hostName.replace(QStringLiteral("%h"), alias); // "HostName %h.cluster.example.org"
    if (host.user.isEmpty())
        host.user = currentUser();
    for (QString &file : host.identityFiles)
        file = expandPath(file, host);
    if (!userKnownHosts.isEmpty())
        host.userKnownHostsFile = expandPath(userKnownHosts, host);
    return host;
}

} // namespace torchdeck
