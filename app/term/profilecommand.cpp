#include "term/profilecommand.h"

#include "core/metrics/logmetrics.h"
#include "core/profiles/profilevalidation.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace torchdeck::term {

namespace {
// Options that set one string key of the profile's JSON.
const std::pair<const char16_t *, const char16_t *> textOptions[] = {
    {u"--scheduler", u"scheduler"},           {u"--pbs-dialect", u"pbs_dialect"},
    {u"--slurm-history", u"slurm_history"},   {u"--account", u"account"},
    {u"--partition", u"partition"},           {u"--queue", u"partition"},
    {u"--work-dir", u"work_directory"},       {u"--libtorch", u"libtorch"},
    {u"--trainer-binary", u"trainer_binary"}, {u"--build-on", u"build_on"},
    {u"--in-job-requeue", u"in_job_requeue"}, {u"--notify-command", u"notify_command"},
};

void printProfile(QTextStream &out, const ClusterProfile &profile, bool saved)
{
    out << profile.name << (saved ? QString() : Tr::tr(" (built-in defaults; nothing saved)")) << '\n';
    const QJsonObject json = profile.toJson();
    for (auto it = json.begin(); it != json.end(); ++it) {
        const QString value =
            it.value().isArray() ? QString::fromUtf8(QJsonDocument(it.value().toArray()).toJson(QJsonDocument::Compact))
            : it.value().isDouble() ? QString::number(it.value().toInt())
                                    : it.value().toString();
        out << "  " << it.key() << ": " << value << '\n';
    }
}
} // namespace

int runProfileCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("profile"), out, err);
    QString cluster;
    QJsonObject changes;
    QJsonArray modules;
    bool modulesGiven = false;
    QJsonArray logPatterns;
    bool logPatternsGiven = false;
    QStringList reachGiven; // CLUSTER=ARGS, in order; empty ARGS: forget it
    bool noReach = false;
    bool reset = false;
    bool json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        const bool hasValue = i + 1 < args.size();
        bool known = false;
        for (const auto &[flag, key] : textOptions) {
            if (arg == QStringView(flag) && hasValue) {
                changes[QString::fromUtf16(key)] = args.at(++i);
                known = true;
            }
        }
        if (known)
            continue;
        if ((arg == u"--build-cpus" || arg == u"--wait-notice" || arg == u"--min-poll") && hasValue) {
            bool ok = false;
            const int number = args.at(++i).toInt(&ok);
            if (!ok) {
                context.error(Tr::tr("%1 wants a whole number").arg(arg));
                return UsageError;
            }
            changes[arg == u"--build-cpus"    ? QStringLiteral("build_cpus")
                    : arg == u"--wait-notice" ? QStringLiteral("wait_notice_seconds")
                                              : QStringLiteral("min_poll_seconds")] = number;
        } else if (arg == u"--module" && hasValue) {
            modules.append(args.at(++i));
            modulesGiven = true;
        } else if (arg == u"--no-modules") {
            modulesGiven = true;
        } else if (arg == u"--log-pattern" && hasValue) {
            logPatterns.append(args.at(++i));
            logPatternsGiven = true;
        } else if (arg == u"--no-log-patterns") {
            logPatternsGiven = true;
        } else if (arg == u"--reach" && hasValue) {
            const QString value = args.at(++i);
            if (parseReachLine(value).cluster.isEmpty()) {
                context.error(Tr::tr("--reach wants CLUSTER=SSH-ARGUMENTS (what reaches CLUSTER from this cluster's "
                                     "login node, e.g. a-login=\"-p 22 me@login.a.org\"), got '%1'")
                                  .arg(value));
                return UsageError;
            }
            reachGiven.append(value);
        } else if (arg == u"--no-reach") {
            noReach = true;
        } else if (arg == u"--reset") {
            reset = true;
        } else if (arg == u"--json") {
            json = true;
        } else if (!arg.startsWith(u'-') && cluster.isEmpty()) {
            cluster = arg;
        } else {
            context.error(Tr::tr("unexpected argument '%1' (see torchdeck --help)").arg(arg));
            return UsageError;
        }
    }
    if (cluster.isEmpty()) {
        context.error(Tr::tr("which cluster? (torchdeck clusters lists them)"));
        return UsageError;
    }
    if (!context.loadProfiles())
        return Failure;
    ProfileStore &profiles = context.profiles();
    if (logPatternsGiven)
        changes[u"log_patterns"] = logPatterns;
    if (noReach || !reachGiven.isEmpty()) {
        const QStringList before = noReach ? QStringList() : profiles.profile(cluster).reach;
        changes[u"reach"] = QJsonArray::fromStringList(mergeReach(before, reachGiven));
    }
    const bool changing = reset || modulesGiven || !changes.isEmpty();
    if (changing) {
        if (reset)
            profiles.remove(cluster);
        if (modulesGiven)
            changes[u"modules"] = modules;
        QJsonObject merged = profiles.profile(cluster).toJson();
        for (auto it = changes.begin(); it != changes.end(); ++it)
            merged[it.key()] = it.value();
        QString problem;
        const ClusterProfile profile = ClusterProfile::fromJson(cluster, merged, &problem);
        if (!problem.isEmpty()) {
            context.error(problem);
            return UsageError;
        }
        const QList<ProfileError> errors = validateClusterProfile(profile);
        if (!errors.isEmpty()) {
            QStringList lines;
            for (const ProfileError &e : errors)
                lines.append(QStringLiteral("%1: %2").arg(e.field, e.message));
            context.error(Tr::tr("profile %1 not saved: %2").arg(cluster, lines.join(QStringLiteral("; "))));
            return UsageError;
        }
        for (const QString &note : contextPatternNotes(logPatternsGiven ? profile.logPatterns : QStringList()))
            context.note(note);
        if (!reset || !changes.isEmpty() || modulesGiven)
            profiles.put(profile);
        if (!profiles.save(&problem)) {
            context.error(problem);
            return Failure;
        }
        // A running agent polls and restarts with the new profile from now on (none is started for it).
        waitFor(context.agent(false).profilesChanged(), 5000);
    }
    const ClusterProfile profile = profiles.profile(cluster);
    if (json) {
        QJsonObject object = profile.toJson();
        object[u"name"] = profile.name;
        out << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n';
    } else {
        printProfile(out, profile, profiles.contains(cluster));
    }
    out << Qt::flush;
    return Ok;
}

} // namespace torchdeck::term
