#include "term/checkcommand.h"

#include "core/profiles/profilestore.h"
#include "core/sshconfigparser.h"
#include "remote/clustercheck.h"
#include "remote/connection.h"
#include "term/blocking.h"
#include "term/terminalfront.h"
#include "term/terminalprompts.h"
#include "term/termtr.h"

#include <QEventLoop>
#include <QTextStream>

namespace torchdeck::term {

namespace {
constexpr int connectTimeoutMs = 60000;

SchedulerKind schedulerFromName(const QString &name, bool &ok)
{
    ok = true;
    if (name == u"slurm")
        return SchedulerKind::Slurm;
    if (name == u"pbs")
        return SchedulerKind::Pbs;
    if (name == u"local")
        return SchedulerKind::Local;
    ok = false;
    return SchedulerKind::Slurm;
}
} // namespace

int runCheckCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QString cluster;
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (!args.at(i).startsWith(u'-') && (i == 0 || !args.at(i - 1).startsWith(u'-'))) {
            cluster = args.at(i);
            break;
        }
    }
    // The cluster's profile gives the defaults; the options override them for this check.
    ProfileStore profiles;
    QString problem;
    if (!profiles.load(&problem)) {
        err << "torchdeck check: " << problem << '\n';
        return Failure;
    }
    const ClusterProfile profile = profiles.profile(cluster);
    remote::ClusterCheckSettings settings = remote::checkSettingsOf(profile);
    cluster.clear();
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        const bool hasValue = i + 1 < args.size();
        if (arg == u"--scheduler" && hasValue) {
            bool ok = false;
            settings.scheduler = schedulerFromName(args.at(++i), ok);
            if (!ok) {
                err << Tr::tr("torchdeck check: --scheduler must be slurm, pbs or local\n");
                return UsageError;
            }
        } else if (arg == u"--work-dir" && hasValue) {
            settings.workDirectory = args.at(++i);
        } else if (arg == u"--libtorch" && hasValue) {
            settings.libtorchPrefix = args.at(++i);
        } else if (!arg.startsWith(u'-') && cluster.isEmpty()) {
            cluster = arg;
        } else {
            err << Tr::tr("torchdeck check: unexpected argument '%1' (usage: torchdeck check CLUSTER "
                          "[--scheduler slurm|pbs|local] [--work-dir DIR] [--libtorch PREFIX])\n")
                       .arg(arg);
            return UsageError;
        }
    }
    if (cluster.isEmpty()) {
        err << Tr::tr("torchdeck check: which cluster? (torchdeck clusters lists them)\n");
        return UsageError;
    }
    out << Tr::tr("Checking %1\n").arg(cluster) << Qt::flush;
    remote::ConnectionSettings connectionSettings;
    connectionSettings.host = cluster;
    connectionSettings.sshConfigFile = userSshConfigPath();
    remote::Connection connection(connectionSettings);
    answerOnTerminal(connection);
    connection.open();
    QString error;
    if (!waitConnected(connection, connectTimeoutMs, &error)) {
        out << Tr::tr("  \u2717 Connection: %1\n").arg(error);
        if (!hasTerminal())
            out << Tr::tr("    (no terminal to ask on: run `ssh %1 true` once, or torchdeck check in a terminal)\n")
                       .arg(cluster);
        return Failure;
    }
    out << Tr::tr("  \u2713 Connection: reachable, host key known, authenticated\n") << Qt::flush;
    remote::ClusterCheck check(&connection, settings);
    int failures = 0;
    QObject::connect(&check, &remote::ClusterCheck::itemChecked, &check, [&](const remote::CheckItem &item) {
        out << "  "
            << (!item.ok       ? "\u2717 "
                : item.warning ? "! "
                               : "\u2713 ")
            << item.name << ": " << item.detail << '\n'
            << Qt::flush;
        failures += item.ok ? 0 : 1;
    });
    QEventLoop loop;
    QObject::connect(&check, &remote::ClusterCheck::finished, &loop, &QEventLoop::quit);
    check.start();
    loop.exec();
    return failures == 0 ? Ok : Failure;
}

} // namespace torchdeck::term
