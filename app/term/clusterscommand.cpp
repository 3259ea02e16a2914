#include "term/clusterscommand.h"

#include "core/sshconfigparser.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace torchdeck::term {

int runClustersCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const bool json = args.contains(QStringLiteral("--json"));
    for (const QString &arg : args) {
        if (arg != u"--json") {
            err << Tr::tr("torchdeck clusters: unknown option '%1'\n").arg(arg);
            return UsageError;
        }
    }
    const SshConfig config = readUserSshConfig();
    for (const QString &warning : config.warnings)
        err << Tr::tr("torchdeck: warning: %1\n").arg(warning);
    QJsonArray rows;
    for (const QString &alias : config.hostAliases()) {
        const SshHost host = config.resolve(alias);
        if (json) {
            rows.append(QJsonObject{{QStringLiteral("name"), host.alias},
                                    {QStringLiteral("host"), host.hostName},
                                    {QStringLiteral("port"), host.port},
                                    {QStringLiteral("user"), host.user},
                                    {QStringLiteral("proxyJump"), host.proxyJump}});
        } else {
            out << qSetFieldWidth(24) << Qt::left << host.alias << qSetFieldWidth(0) << host.user << '@'
                << host.hostName << ':' << host.port;
            if (!host.proxyJump.isEmpty())
                out << Tr::tr(" via %1").arg(host.proxyJump);
            out << '\n';
        }
    }
    if (json)
        out << QJsonDocument(rows).toJson(QJsonDocument::Compact) << '\n';
    else if (rows.isEmpty() && config.hostAliases().isEmpty())
        err << Tr::tr("torchdeck: no hosts in %1 (scripts/sandbox start adds torchdeck-sandbox)\n")
                   .arg(userSshConfigPath());
    return Ok;
}

} // namespace torchdeck::term
