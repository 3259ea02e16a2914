#include "term/runrefresh.h"

#include "term/termtr.h"

#include <QMap>

namespace torchdeck::term {

namespace {
constexpr int refreshTimeoutMs = 120000;

// One pass of the session over these runs; the problem it reported, or why it did not end.
QString refreshOnce(ClusterSession &session, const QStringList &runIds)
{
    QString problem;
    QObject context;
    const bool finished = waitUntil(
        [&](const std::function<void()> &done) {
            QObject::connect(&session, &ClusterSession::refreshed, &context, [&problem, done](const QString &said) {
                problem = said;
                done();
            });
            QObject::connect(&session, &ClusterSession::storeFailed, &context, [&problem, done](const QString &said) {
                problem = said;
                done();
            });
            session.refresh(runIds);
        },
        refreshTimeoutMs);
    if (!finished)
        return Tr::tr("no answer within %1 s").arg(refreshTimeoutMs / 1000);
    // A restart the pass decided on is submitted before the command ends.
    while (session.isRestarting()) {
        waitUntil(
            [&](const std::function<void()> &done) {
                QObject::connect(&session, &ClusterSession::restarted, &context, done);
                QObject::connect(&session, &ClusterSession::restartFailed, &context, done);
            },
            refreshTimeoutMs);
    }
    return problem;
}
} // namespace

bool refreshRuns(TermContext &context, const QList<RunRecord> &runs)
{
    QMap<QString, QStringList> byCluster;
    for (const RunRecord &run : runs) {
        if (isUnfinishedRun(run))
            byCluster[run.cluster].append(run.id);
    }
    bool allWell = true;
    for (auto it = byCluster.cbegin(); it != byCluster.cend(); ++it) {
        ClusterSession *session = context.connect(it.key());
        if (!session) {
            allWell = false;
            continue;
        }
        const QMetaObject::Connection said = QObject::connect(
            session, &ClusterSession::restarted, session,
            [&context](const QString &runId, const QString &jobId, const QString &reason) {
                context.err()
                    << Tr::tr("torchdeck: run %1 restarted as job %2 (%3)\n").arg(runId.left(8), jobId, reason)
                    << Qt::flush;
            });
        const QString problem = refreshOnce(*session, it.value());
        QObject::disconnect(said);
        if (!problem.isEmpty()) {
            context.error(QStringLiteral("%1: %2").arg(it.key(), problem));
            allWell = false;
        }
    }
    return allWell;
}

} // namespace torchdeck::term
