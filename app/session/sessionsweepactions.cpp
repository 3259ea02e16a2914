// ClusterSession's whole-sweep actions: resume what ended short of completing, delete the sweep. The agent chooses
// the runs (core/runs/sweeptable.h) after a pass over them, under its own view of the store, and alone writes it.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/runs/sweeptable.h"
#include "core/store/runstore.h"
#include "session/clustersession.h"

#include <memory>

namespace torchdeck {

namespace {
struct SweepRuns {
    QList<SweepMember> members;
    QStringList runIds;
    QString error;
};

SweepRuns sweepRuns(const RunStore &store, const QString &sweepId)
{
    const auto members = store.sweepMembers(sweepId);
    if (!members.ok())
        return {{}, {}, members.error};
    SweepRuns runs{members.value, {}, {}};
    for (const SweepMember &member : members.value)
        runs.runIds.append(member.runId);
    return runs;
}

QList<RunRecord> storedRuns(const RunStore &store, const QStringList &runIds)
{
    QList<RunRecord> runs;
    for (const QString &runId : runIds) {
        if (const auto run = store.run(runId); run.ok() && run.value)
            runs.append(*run.value);
    }
    return runs;
}

QStringList namesOf(const QList<RunRecord> &runs)
{
    QStringList names;
    for (const RunRecord &run : runs)
        names.append(run.name);
    return names;
}
} // namespace

SessionOperation *ClusterSession::resumeSweep(const QString &sweepId)
{
    const SweepRuns runs = sweepRuns(*m_store, sweepId);
    if (!runs.error.isEmpty())
        return SessionOperation::alreadyFailed(runs.error, this);
    auto *operation = new SessionOperation(this);
    SessionOperation *pass = refreshOperation(runs.runIds, 0); // the states as the scheduler says them now
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation, [this, operation, runs] {
        auto reply = std::make_shared<agent::ResumeSweep::Reply>();
        auto pending = std::make_shared<QList<RunRecord>>(sweepRunsToResume(storedRuns(*m_store, runs.runIds)));
        // One after the other, as a sweep's points are sent: each sees what the one before deployed.
        auto next = std::make_shared<std::function<void()>>();
        *next = [this, operation, reply, pending, weakNext = std::weak_ptr(next)] {
            if (pending->isEmpty())
                return operation->finishWith(*reply);
            const RunRecord run = pending->takeFirst();
            SessionOperation *resumed = resume(run.id, ResumeFrom::latest(), {});
            connect(resumed, &SessionOperation::progress, operation, &SessionOperation::reportProgress);
            connect(resumed, &SessionOperation::failed, operation,
                    [reply, run, next = weakNext.lock()](const QString &error) {
                        reply->problems.append(tr("%1: %2").arg(run.name, error));
                        (*next)();
                    });
            onReply<agent::Resume>(resumed, operation,
                                   [reply, next = weakNext.lock()](const agent::SubmitReply &submitted) {
                                       reply->resumed.append(submitted.first);
                                       (*next)();
                                   });
        };
        (*next)();
    });
    return operation;
}

SessionOperation *ClusterSession::deleteSweep(const QString &sweepId, bool refreshFirst)
{
    const SweepRuns runs = sweepRuns(*m_store, sweepId);
    if (!runs.error.isEmpty())
        return SessionOperation::alreadyFailed(runs.error, this);
    auto *operation = new SessionOperation(this);
    const auto decide = [this, operation, runs, sweepId] {
        const QList<RunRecord> going = sweepRunsGoingOn(storedRuns(*m_store, runs.runIds));
        if (!going.isEmpty())
            return operation->fail(tr("%1 of the sweep's runs still go on (%2): cancel them first")
                                       .arg(going.size())
                                       .arg(namesOf(going).join(QStringLiteral(", "))));
        if (const StoreStatus removed = m_store->removeSweep(sweepId); !removed.ok())
            return operation->fail(removed.error);
        for (const QString &runId : runs.runIds)
            emit runUpdated(runId); // gone: the fronts read the store again
        operation->finishWith(agent::DeleteSweep::Reply{runs.runIds.size()});
    };
    if (!refreshFirst) {
        QMetaObject::invokeMethod(operation, decide, Qt::QueuedConnection);
        return operation;
    }
    SessionOperation *pass = refreshOperation(runs.runIds, 0);
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation, decide);
    return operation;
}

} // namespace torchdeck
