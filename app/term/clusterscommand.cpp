#include "term/clusterscommand.h"

#include "core/sshconfigparser.h"
#include "term/terminalfront.h"

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
            err << "torchdeck clusters: unknown option '" << arg << "'\n";
            return UsageError;
        }
    }
    const SshConfig config = readUserSshConfig();
    for (const QString &warning : config.warnings)
        err << "torchdeck: warning: " << warning << '\n';
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
                out << " via " << host.proxyJump;
            out << '\n';
        }
    }
    if (json)
        out << QJsonDocument(rows).toJson(QJsonDocument::Compact) << '\n';
    else if (rows.isEmpty() && config.hostAliases().isEmpty())
        err << "torchdeck: no hosts in " << userSshConfigPath() << " (scripts/sandbox start adds torchdeck-sandbox)\n";
    return Ok;
}

} // namespace torchdeck::term
