#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck {

// One Host block of an ssh config after Includes are expanded: its patterns and options in file order.
struct SshConfigBlock {
    QStringList patterns; // empty: the options before the first Host line, which apply to every host
    QList<std::pair<QString, QString>> options; // keyword lowercased, value with quotes removed
};

// What a host alias resolves to, by ssh's rule: for each option the first value found wins.
struct SshHost {
    QString alias;
    QString hostName;
    int port = 22;
    QString user;
    QStringList identityFiles;
    QString proxyJump;
    QString userKnownHostsFile;
    bool hashKnownHosts = false; // new host keys are written with the host name hashed (|1|salt|hmac)
};

// A known_hosts line for `host` ("name" or "[name]:port" as ssh writes it) with the name hashed as OpenSSH
// does when HashKnownHosts is yes: "|1|" base64(salt) "|" base64(HMAC-SHA1(salt, host)). `salt`: 20 bytes.
QString hashedKnownHostName(const QString &host, const QByteArray &salt);

// A parsed ssh config (~/.ssh/config and the files it Includes). Match blocks are kept but never apply:
// torchdeck lists and resolves hosts without running Match exec.
struct SshConfig {
    QList<SshConfigBlock> blocks;
    QStringList warnings; // unreadable includes, malformed lines: shown, never fatal

    // Aliases named on Host lines, without wildcard or negated patterns, in file order, no duplicates.
    QStringList hostAliases() const;
    SshHost resolve(const QString &alias) const;
    // Whether the config names this host: an alias, or a host a Host line's pattern matches ("*.cluster.edu"); the
    // catch-all "Host *" alone does not count.
    bool names(const QString &host) const;
};

// Whether `host` matches a Host line's patterns (wildcards * and ?, negation with !).
bool sshHostMatches(const QStringList &patterns, const QString &host);

} // namespace torchdeck
