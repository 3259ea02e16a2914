// ClusterSession::submitSweep: a sweep's points as one job array or as a job each, joined to the sweep as they go.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/store/runstore.h"
#include "session/clustersession.h"
#include "session/internal/submission.h"

#include <QUuid>

namespace torchdeck {

namespace {

// What a sweep's submission carries from one point to the next.
struct SweepProgress {
    SweepRecord sweep;
    QList<SweepPointRequest> points;
    QList<LaunchResult> results;
    QPointer<Submission> current;
    bool stopped = false;
};

} // namespace

SessionOperation *ClusterSession::submitSweep(const SweepRecord &sweep, const QList<SweepPointRequest> &points,
                                              bool asArray, int maxRunning)
{
    if (points.isEmpty())
        return SessionOperation::alreadyFailed(tr("the sweep has no points"), this);
    if (asArray && points.size() < 2)
        return SessionOperation::alreadyFailed(tr("a job array needs two runs or more"), this);
    if (const StoreStatus added = m_store->addSweep(sweep); !added.ok())
        return SessionOperation::alreadyFailed(added.error, this);
    auto *operation = new SessionOperation(this);
    auto state = std::make_shared<SweepProgress>(SweepProgress{sweep, points, {}, {}, false});
    for (SweepPointRequest &point : state->points) { // each run joins the sweep by its id: every point has one
        if (point.request.runId.isEmpty())
            point.request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    }
    const auto joined = [this, state, operation](const LaunchResult &result) {
        state->results.append(result);
        for (const SweepPointRequest &point : std::as_const(state->points)) {
            if (point.request.runId != result.runId)
                continue;
            if (const StoreStatus saved = m_store->joinSweep(result.runId, state->sweep.id, point.pointJson);
                !saved.ok())
                operation->reportOutput(saved.error + u'\n');
        }
    };
    const auto finish = [this, state, operation] {
        QStringList runs;
        for (const LaunchResult &each : std::as_const(state->results))
            runs.append(each.runId);
        refresh(runs);
        // The first run's result as a single submission's, then the sweep and every run's.
        operation->finishWith(agent::SubmitReply{
            state->results.isEmpty() ? LaunchResult{} : state->results.constFirst(), state->results, state->sweep.id});
    };
    const auto failed = [this, state, operation](const QString &error) {
        // What reached the store stays the sweep's (a task recorded before another's record failed; a claim
        // that is looked for again once its lease runs out); a sweep that kept no run is removed.
        int kept = 0;
        int sent = 0;
        for (const SweepPointRequest &point : std::as_const(state->points)) {
            const auto run = m_store->run(point.request.runId);
            if (!run.ok() || !run.value)
                continue;
            ++kept;
            if (const auto jobs = m_store->jobs(point.request.runId);
                jobs.ok() && !submittedJobIds(jobs.value).isEmpty())
                ++sent;
            if (const StoreStatus saved = m_store->joinSweep(point.request.runId, state->sweep.id, point.pointJson);
                !saved.ok())
                operation->reportOutput(saved.error + u'\n');
        }
        if (kept == 0)
            static_cast<void>(m_store->removeSweep(state->sweep.id));
        operation->fail(
            tr("the sweep stopped, %1 of %2 points submitted: %3").arg(sent).arg(state->points.size()).arg(error));
    };
    operation->setStopHandler([state] {
        // Jobs already sent stay sent; no further point is.
        state->stopped = true;
        if (state->current)
            state->current->stop();
    });
    if (asArray) {
        QList<LaunchRequest> requests;
        for (const SweepPointRequest &point : std::as_const(state->points))
            requests.append(point.request);
        auto *submission = new Submission(this, requests, maxRunning);
        state->current = submission;
        reportSubmission(submission, operation);
        connect(submission, &Submission::jobSubmitted, this, joined);
        connect(submission, &Submission::failed, operation, failed);
        connect(submission, &Submission::finished, operation, finish);
        submission->start();
        return operation;
    }
    // A job per point, one after the other: each sees the trainer the one before it deployed.
    auto next = std::make_shared<std::function<void()>>();
    // The running point's connection holds the next step; the step itself only a weak reference (no cycle).
    *next = [this, state, operation, joined, finish, failed, weakNext = std::weak_ptr(next)] {
        const qsizetype index = state->results.size();
        if (index == state->points.size() || state->stopped)
            return finish();
        const SweepPointRequest &point = state->points.at(index);
        operation->reportOutput(
            tr("Point %1 of %2: %3\n").arg(index + 1).arg(state->points.size()).arg(point.pointJson));
        auto *submission = new Submission(this, point.request, 1);
        if (index == 0)
            submission->setSweepJobs(int(state->points.size()));
        state->current = submission;
        reportSubmission(submission, operation);
        connect(submission, &Submission::jobSubmitted, this, joined);
        connect(submission, &Submission::failed, operation, failed);
        connect(submission, &Submission::finished, operation, [next = weakNext.lock()] { (*next)(); });
        submission->start();
    };
    (*next)();
    return operation;
}

} // namespace torchdeck
