#include "term/submitplacement.h"

#include "client/sessionoperation.h"
#include "client/startplacement.h"
#include "core/agent/agentops.h"
#include "term/joboptions.h"
#include "term/submitsteps.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
constexpr int estimateTimeoutMs = 60000;

// The script `request` would send to its cluster, or why it cannot be sent there.
std::optional<QString> scriptFor(TermContext &context, const LaunchRequest &request, QString *why)
{
    const QString &cluster = request.profile.name;
    if (!context.connect(cluster)) {
        *why = Tr::tr("cannot connect (said above)");
        return std::nullopt;
    }
    if (!waitForWorkDirectory(context, request.profile)) {
        *why = Tr::tr("its work directory %1 is not there (said above)").arg(request.profile.workDirectory);
        return std::nullopt;
    }
    const SubmissionScript rendered = context.agent().previewSubmission(request);
    if (!rendered.ok()) {
        *why = formatJobErrorsAsOptions(rendered.errors).simplified();
        return std::nullopt;
    }
    return rendered.script;
}
} // namespace

QStringList candidateClusters(const QString &text, QString *error)
{
    QStringList clusters;
    for (const QString &part : text.split(u',')) {
        const QString cluster = part.trimmed();
        if (cluster.isEmpty()) {
            *error = Tr::tr("an empty cluster name in '%1' (clusters are separated by commas: A,B)").arg(text);
            return {};
        }
        if (!clusters.contains(cluster))
            clusters.append(cluster);
    }
    return clusters;
}

Placement placeAmong(TermContext &context, const QStringList &clusters,
                     const std::function<LaunchRequest(const QString &)> &requestFor)
{
    Placement placement;
    placement.asked = QDateTime::currentDateTimeUtc();
    for (const QString &cluster : clusters) {
        StartEstimate estimate;
        estimate.cluster = cluster;
        const auto script = scriptFor(context, requestFor(cluster), &estimate.said);
        if (!script) {
            estimate.skipped = true;
        } else {
            const OperationOutcome asked =
                context.wait(context.agent().estimateStart(cluster, *script), estimateTimeoutMs, cluster);
            const auto reply = asked.reply<agent::EstimateStart>();
            if (!asked.ok || !reply) {
                estimate.skipped = true;
                estimate.said = asked.ok ? Tr::tr("an unreadable reply from the agent") : asked.error;
            } else {
                estimate = startEstimateOf(cluster, *reply);
            }
        }
        placement.estimates.append(estimate);
    }
    const qsizetype soonest = soonestStart(placement.estimates);
    if (soonest >= 0)
        placement.chosen = placement.estimates.at(soonest).cluster;
    context.err() << Tr::tr("torchdeck submit: when each cluster would start it:\n");
    for (const QString &line : describeEstimates(placement))
        context.err() << QStringLiteral("  ") << line << u'\n';
    context.err() << Qt::flush;
    return placement;
}

bool previewEach(TermContext &context, const QStringList &clusters,
                 const std::function<LaunchRequest(const QString &)> &requestFor)
{
    bool any = false;
    for (const QString &cluster : clusters) {
        QString why;
        const auto script = scriptFor(context, requestFor(cluster), &why);
        context.out() << QStringLiteral("# ==> %1 <==\n").arg(cluster);
        if (!script) {
            context.out() << Tr::tr("# cannot run there: %1\n\n").arg(why) << Qt::flush;
            continue;
        }
        any = true;
        context.out() << *script << (script->endsWith(u'\n') ? QStringLiteral("\n") : QStringLiteral("\n\n"))
                      << Qt::flush;
    }
    return any;
}

} // namespace torchdeck::term
