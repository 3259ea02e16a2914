#include "term/submitsteps.h"

#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "term/blocking.h"
#include "term/interruptnotice.h"
#include "term/joboptions.h"
#include "term/progressprinter.h"
#include "term/termtr.h"

namespace torchdeck::term {

namespace {
// Deployment includes a first build of the trainer on the cluster: minutes on a small login node.
constexpr int launchTimeoutMs = 60 * 60 * 1000;
constexpr int workDirectoryTimeoutMs = 60000;
} // namespace

std::optional<QList<LaunchResult>> followSubmissions(TermContext &context, SessionOperation *submission,
                                                     ProblemNames names)
{
    const InterruptNotice notice(
        Tr::tr("torchdeck: interrupted; the agent goes on with the submission (its job may reach the scheduler): "
               "`torchdeck runs` shows it, `torchdeck cancel RUN` stops it"));
    ProgressPrinter progress(context.err());
    std::optional<LaunchResult> first;
    QList<JobSpecError> refused; // the agent's words name JobSpec keys; these name this command's options
    QObject watcher;
    QObject::connect(submission, &SessionOperation::progress, &watcher,
                     [&](const QString &step, qint64 done, qint64 total) { progress.step(step, done, total); });
    QObject::connect(submission, &SessionOperation::output, &watcher,
                     [&](const QString &text) { progress.output(text); });
    const OperationOutcome outcome =
        waitFor(submission, launchTimeoutMs, [&](const QString &name, const QCborMap &args) {
            if (const auto errors = eventOf<agent::JobErrorsEvent>(name, args))
                refused = errors->errors;
            const std::optional<agent::JobEvent> sent = eventOf<agent::JobEvent>(name, args);
            const std::optional<LaunchResult> job = sent ? std::optional<LaunchResult>(sent->result) : std::nullopt;
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
    const std::optional<agent::SubmitReply> reply = outcome.reply<agent::Submit>();
    if (!outcome.ok && !refused.isEmpty() && names == ProblemNames::Options) {
        // The agent's words (a sweep's say how many points went), the problems they list named as options.
        context.error(QString(outcome.error).replace(formatJobSpecErrors(refused), formatJobErrorsAsOptions(refused)));
        return std::nullopt;
    }
    if (!reply || reply->jobs.isEmpty()) {
        context.error(outcome.ok ? Tr::tr("the agent's answer names no job") : outcome.error);
        return std::nullopt;
    }
    return reply->jobs;
}

std::optional<LaunchResult> followSubmission(TermContext &context, SessionOperation *submission, ProblemNames names)
{
    const std::optional<QList<LaunchResult>> results = followSubmissions(context, submission, names);
    return results ? std::optional<LaunchResult>(results->constFirst()) : std::nullopt;
}

RestartMechanism restartMechanismOf(const ClusterProfile &profile, const JobOptions &options)
{
    if (options.spec.moveAfterSeconds > 0)
        return movingRestartMechanism();
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
