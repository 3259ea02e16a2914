#include "term/runrefresh.h"

#include "core/scheduler/jobstate.h"
#include "remote/runtracker.h"

#include <QMap>

namespace torchdeck::term {

namespace {
constexpr int refreshTimeoutMs = 120000;
}

bool isUnfinishedRun(const RunRecord &run)
{
    return !isFinal(jobStateFromName(run.state));
}

bool refreshRuns(TermContext &context, const QList<RunRecord> &runs)
{
    QMap<QString, QStringList> byCluster;
    for (const RunRecord &run : runs) {
        if (isUnfinishedRun(run))
            byCluster[run.cluster].append(run.id);
    }
    bool allWell = true;
    for (auto it = byCluster.cbegin(); it != byCluster.cend(); ++it) {
        const auto connection = context.connect(it.key());
        if (!connection) {
            allWell = false;
            continue;
        }
        remote::RunTracker tracker(connection.get(), context.profiles().profile(it.key()), &context.store());
        tracker.setAutoRestart(true);
        QObject::connect(&tracker, &remote::RunTracker::restarted, &tracker,
                         [&context](const QString &runId, const QString &jobId, const QString &reason) {
                             context.err() << "torchdeck: run " << runId.left(8) << " restarted as job " << jobId
                                           << " (" << reason << ")\n"
                                           << Qt::flush;
                         });
        QString problem;
        const bool finished = waitUntil(
            [&](const std::function<void()> &done) {
                QObject::connect(&tracker, &remote::RunTracker::refreshed, &tracker, [&, done](const QString &said) {
                    problem = said;
                    done();
                });
                QObject::connect(&tracker, &remote::RunTracker::failed, &tracker, [&, done](const QString &said) {
                    problem = said;
                    done();
                });
                tracker.refresh(it.value());
            },
            refreshTimeoutMs);
        if (!finished)
            problem = QStringLiteral("no answer within %1 s").arg(refreshTimeoutMs / 1000);
        // A restart the pass decided on is submitted before the command ends.
        while (finished && tracker.isRestarting()) {
            waitUntil(
                [&](const std::function<void()> &done) {
                    QObject::connect(&tracker, &remote::RunTracker::restarted, &tracker, done);
                    QObject::connect(&tracker, &remote::RunTracker::restartFailed, &tracker, done);
                },
                refreshTimeoutMs);
        }
        if (!problem.isEmpty()) {
            context.error(QStringLiteral("%1: %2").arg(it.key(), problem));
            allWell = false;
        }
    }
    return allWell;
}

} // namespace torchdeck::term
