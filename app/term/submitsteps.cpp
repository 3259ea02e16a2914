#include "term/submitsteps.h"

#include "core/agent/agentcodec.h"
#include "session/sessionoperation.h"
#include "term/blocking.h"
#include "term/progressprinter.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
// Deployment includes a first build of the trainer on the cluster: minutes on a small login node.
constexpr int launchTimeoutMs = 60 * 60 * 1000;
constexpr int workDirectoryTimeoutMs = 60000;
} // namespace

std::optional<QList<LaunchResult>> followSubmissions(TermContext &context, SessionOperation *submission)
{
    ProgressPrinter progress(context.err());
    std::optional<LaunchResult> first;
    QObject watcher;
    QObject::connect(submission, &SessionOperation::progress, &watcher,
                     [&](const QString &step, qint64 done, qint64 total) { progress.step(step, done, total); });
    QObject::connect(submission, &SessionOperation::output, &watcher,
                     [&](const QString &text) { progress.output(text); });
    const OperationOutcome outcome =
        waitFor(submission, launchTimeoutMs, [&](const QString &name, const QCborMap &args) {
            QString problem;
            const std::optional<LaunchResult> job =
                name == u"job" ? launchResultFromCbor(args, &problem) : std::nullopt;
            if (job && !first) {
                first = job;
            } else if (job && job->runId == first->runId) {
                progress.finish();
                context.err() << Tr::tr("torchdeck submit: attempt %1 queued as job %2, after the one before it if it "
                                        "fails\n")
                                     .arg(job->attempt)
                                     .arg(job->jobId)
                              << Qt::flush;
            }
        });
    progress.finish();
    QString problem = outcome.error;
    QList<LaunchResult> results;
    if (outcome.ok) {
        const QCborArray jobs = outcome.map().value(QStringLiteral("jobs")).toArray();
        for (const QCborValue &job : jobs) {
            const std::optional<LaunchResult> result = launchResultFromCbor(job.toMap(), &problem);
            if (result)
                results.append(*result);
        }
        const std::optional<LaunchResult> result =
            jobs.isEmpty() ? launchResultFromCbor(outcome.map(), &problem) : std::nullopt;
        if (result)
            results.append(*result);
    }
    if (results.isEmpty()) {
        context.error(problem);
        return std::nullopt;
    }
    return results;
}

std::optional<LaunchResult> followSubmission(TermContext &context, SessionOperation *submission)
{
    const std::optional<QList<LaunchResult>> results = followSubmissions(context, submission);
    return results ? std::optional<LaunchResult>(results->constFirst()) : std::nullopt;
}

RestartMechanism restartMechanismOf(const ClusterProfile &profile, const JobOptions &options)
{
    const bool chosen = options.requeueChosen || options.spec.requeue;
    return restartMechanism(profile, chosen ? std::optional<bool>(options.spec.requeue) : std::nullopt);
}

bool waitForWorkDirectory(TermContext &context, const ClusterProfile &profile)
{
    const QString cluster = profile.name;
    if (context.agent().workDirectory(cluster).isEmpty() &&
        !waitFor(context.agent().workDirectoryOf(cluster), workDirectoryTimeoutMs).ok) {
        context.error(Tr::tr("cannot find the work directory %1 on %2 (torchdeck check %2 says why)")
                          .arg(profile.workDirectory, cluster));
        return false;
    }
    return true;
}

} // namespace torchdeck::term
