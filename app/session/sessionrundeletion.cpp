// ClusterSession's changes to whole runs: deleting them (their records, and with `remote` their directories on the
// cluster), and what the user calls them and wrote of them.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/runs/runfiles.h"
#include "core/store/runstore.h"
#include "session/internal/sessioninternals.h"

#include <QMap>

namespace torchdeck {

namespace {
constexpr int deleteDeadlineMs = 10 * 60 * 1000; // rm -rf of many GB of checkpoints on a network file system

// The run's jobs still pending or running; a run that has not ended without one is going on too.
QStringList goingOn(const RunRecord &run, const QList<JobRecord> &jobs)
{
    QStringList going;
    for (const JobRecord &job : jobs)
        if (!job.hasEnded())
            going.append(ClusterSession::tr("job %1 is %2")
                             .arg(job.jobId.isEmpty() ? QStringLiteral("?") : job.jobId, job.state.toLower()));
    if (going.isEmpty() && !run.hasEnded())
        going.append(ClusterSession::tr("it is %1").arg(run.state.toLower()));
    return going;
}
} // namespace

SessionOperation *ClusterSession::deleteRuns(const QStringList &runIds, bool remote, bool dryRun,
                                             const std::function<ClusterSession *(const QString &)> &sessionOf)
{
    if (runIds.isEmpty())
        return SessionOperation::alreadyFailed(tr("name the runs to delete"), this);
    QList<RunRecord> runs;
    bool allEnded = true;
    for (const QString &id : runIds) {
        const auto run = m_store->run(id);
        if (!run.ok())
            return SessionOperation::alreadyFailed(run.error, this);
        if (!run.value || run.value->cluster != name())
            return SessionOperation::alreadyFailed(tr("no run %1 on %2").arg(id, name()), this);
        runs.append(*run.value);
        allEnded = allEnded && run.value->hasEnded();
    }
    auto *operation = new SessionOperation(this);
    if (allEnded && !remote) {
        QMetaObject::invokeMethod(
            operation, [this, operation, runs, dryRun] { removeRuns(operation, runs, false, dryRun, {}); },
            Qt::QueuedConnection);
        return operation;
    }
    // What the store says of a run that has not ended may be old: a pass first, so a run that just ended can go and a
    // job that just started is seen.
    SessionOperation *pass = refreshOperation(runIds, 0);
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation, [this, operation, runIds, remote, dryRun, sessionOf] {
        QList<RunRecord> current;
        for (const QString &id : runIds)
            if (const auto run = m_store->run(id); run.ok() && run.value)
                current.append(*run.value);
        removeRuns(operation, current, remote, dryRun, sessionOf);
    });
    return operation;
}

void ClusterSession::removeRuns(SessionOperation *operation, const QList<RunRecord> &runs, bool remote, bool dryRun,
                                const std::function<ClusterSession *(const QString &)> &sessionOf)
{
    agent::DeleteRuns::Reply reply;
    QMap<QString, QStringList> elsewhere; // the clusters earlier attempts ran on, and those runs
    for (const RunRecord &run : runs) {
        const auto jobs = m_store->jobs(run.id);
        if (!jobs.ok())
            return operation->fail(jobs.error);
        for (const QString &cluster : clustersRanOn(name(), jobs.value))
            if (cluster != name())
                elsewhere[cluster].append(run.id);
        agent::RunDeletion deletion;
        deletion.run = run.id;
        deletion.name = run.name;
        deletion.directory = runDirectoryOn(name(), run.id, jobs.value, workDirectory());
        reply.runs.append(deletion);
    }
    if (const QString refused = refusal(runs); !refused.isEmpty())
        return operation->fail(refused);
    const auto forget = [this, operation](agent::DeleteRuns::Reply done) {
        QStringList problems;
        for (agent::RunDeletion &deletion : done.runs) {
            if (const StoreStatus removed = m_store->removeRun(deletion.run); !removed.ok())
                problems.append(removed.error);
            else
                deletion.removedRecord = true;
            emit runUpdated(deletion.run); // gone: the fronts read the store again
        }
        if (!problems.isEmpty())
            return operation->fail(problems.join(u'\n'));
        operation->finishWith(done);
    };
    if (!remote)
        return dryRun ? operation->finishWith(reply) : forget(reply);
    // A cluster no longer configured fails a deletion before anything is removed; a dry run says it per run.
    if (!dryRun)
        for (auto it = elsewhere.cbegin(); it != elsewhere.cend(); ++it)
            if (!sessionOf || !sessionOf(it.key()))
                return operation->fail(tr("run %1 also ran on %2, which is no longer in your ssh config: its "
                                          "directory there cannot be removed (delete without --remote to forget "
                                          "the run)")
                                           .arg(it.value().constFirst().left(8), it.key()));
    const auto here = [this, operation, dryRun, forget](const QList<agent::RunDeletion> &measured) {
        if (operation->isDone())
            return; // stopped by its front meanwhile
        measureAndRemove(
            operation, measured, dryRun, [operation, dryRun, forget](const QList<agent::RunDeletion> &done) {
                dryRun ? operation->finishWith(agent::DeleteRuns::Reply{done}) : forget(agent::DeleteRuns::Reply{done});
            });
    };
    removeElsewhere(operation, reply.runs, elsewhere, dryRun, sessionOf, here);
}

QString ClusterSession::refusal(const QList<RunRecord> &runs) const
{
    QStringList refusals;
    for (const RunRecord &run : runs) {
        const auto jobs = m_store->jobs(run.id);
        if (!jobs.ok())
            return jobs.error;
        if (const QStringList going = goingOn(run, jobs.value); !going.isEmpty())
            refusals.append(tr("run %1 (%2) still goes on: %3; `torchdeck cancel %1` first")
                                .arg(run.id.left(8), run.name, going.join(QStringLiteral(", "))));
    }
    return refusals.join(u'\n');
}

void ClusterSession::removeElsewhere(SessionOperation *operation, const QList<agent::RunDeletion> &runs,
                                     QMap<QString, QStringList> elsewhere, bool dryRun,
                                     const std::function<ClusterSession *(const QString &)> &sessionOf,
                                     const std::function<void(const QList<agent::RunDeletion> &)> &then)
{
    if (operation->isDone())
        return; // stopped by its front meanwhile
    if (elsewhere.isEmpty())
        return then(runs);
    const QString cluster = elsewhere.firstKey();
    const QStringList runIds = elsewhere.take(cluster);
    // Each run's entry for this cluster: what it answered, or (a dry run) why it could not be asked.
    const auto noted = [runs, cluster](const QList<agent::RunDeletion> &answered, const QString &problem) {
        QList<agent::RunDeletion> all = runs;
        for (agent::RunDeletion &deletion : all)
            for (const agent::RunDeletion &done : answered)
                if (deletion.run == done.run)
                    deletion.elsewhere.append(
                        {cluster, done.directory, problem.isEmpty() ? done.bytes : -1, done.removedDirectory, problem});
        return all;
    };
    const auto unasked = [runIds] {
        QList<agent::RunDeletion> each;
        for (const QString &id : runIds) {
            agent::RunDeletion deletion;
            deletion.run = id;
            each.append(deletion);
        }
        return each;
    };
    ClusterSession *there = sessionOf ? sessionOf(cluster) : nullptr;
    if (!there) // only a dry run comes here (removeRuns)
        return removeElsewhere(operation, noted(unasked(), tr("no longer in your ssh config")), elsewhere, dryRun,
                               sessionOf, then);
    SessionOperation *removal = there->removeRunDirectoriesHere(runIds, dryRun);
    connect(operation, &QObject::destroyed, removal, &SessionOperation::stop);
    connect(removal, &SessionOperation::failed, operation,
            [this, operation, elsewhere, dryRun, sessionOf, then, noted, unasked](const QString &error) {
                if (!dryRun)
                    return operation->fail(error);
                removeElsewhere(operation, noted(unasked(), error), elsewhere, dryRun, sessionOf, then);
            });
    onReply<agent::DeleteRuns>(
        removal, operation,
        [this, operation, elsewhere, dryRun, sessionOf, then, noted](const agent::DeleteRuns::Reply &removed) {
            removeElsewhere(operation, noted(removed.runs, {}), elsewhere, dryRun, sessionOf, then);
        });
}

SessionOperation *ClusterSession::removeRunDirectoriesHere(const QStringList &runIds, bool dryRun)
{
    auto *operation = new SessionOperation(this);
    const auto failed = [this, operation](const QString &error) {
        operation->fail(tr("deleting on %1 failed: %2").arg(name(), error));
    };
    // The work directory known first: a run whose jobs here named no path in its directory has it there.
    SessionOperation *work = workDirectoryOperation();
    connect(work, &SessionOperation::failed, operation, failed);
    onReply<agent::WorkDirectory>(
        work, operation, [this, operation, runIds, dryRun, failed](const agent::WorkDirectory::Reply &known) {
            QList<agent::RunDeletion> runs;
            for (const QString &id : runIds) {
                const auto jobs = m_store->jobs(id);
                if (!jobs.ok())
                    return failed(jobs.error);
                QList<JobRecord> here; // a job saved without its cluster is of the run's own cluster, not this one
                std::copy_if(jobs.value.cbegin(), jobs.value.cend(), std::back_inserter(here),
                             [this](const JobRecord &job) { return job.cluster == name(); });
                agent::RunDeletion deletion;
                deletion.run = id;
                deletion.directory = runDirectoryOf(id, here, known.directory);
                runs.append(deletion);
            }
            measureAndRemove(operation, runs, dryRun, [operation](const QList<agent::RunDeletion> &done) {
                operation->finishWith(agent::DeleteRuns::Reply{done});
            });
        });
    return operation;
}

void ClusterSession::measureAndRemove(SessionOperation *operation, const QList<agent::RunDeletion> &runs, bool dryRun,
                                      const std::function<void(const QList<agent::RunDeletion> &)> &then)
{
    QString sizes;
    QString removals;
    for (const agent::RunDeletion &deletion : runs) {
        if (!deletion.directory.isEmpty()) {
            sizes += runDirectorySizeCommand(deletion.directory) + QStringLiteral("; ");
            removals += removeRunDirectoryCommand(deletion.directory, deletion.run) + QStringLiteral("; ");
        } else {
            sizes += QStringLiteral("echo -; ");
            removals += QStringLiteral("echo gone; ");
        }
    }
    const auto failed = [this, operation](const QString &error) {
        operation->fail(tr("deleting on %1 failed: %2").arg(name(), error));
    };
    runCommand(
        operation, sizes + QStringLiteral("true"),
        [this, operation, reply = runs, removals, dryRun, then, failed](int, const QByteArray &out,
                                                                        const QByteArray &) mutable {
            const QList<QByteArray> lines = out.split('\n');
            for (qsizetype i = 0; i < reply.size(); ++i) {
                bool ok = false;
                const qint64 bytes = i < lines.size() ? lines.at(i).trimmed().toLongLong(&ok) : -1;
                reply[i].bytes = ok ? bytes : -1;
            }
            if (dryRun)
                return then(reply);
            // The store is every cluster's: a run resumed or continued while the others were measured or removed
            // keeps its directory here (and its record).
            QList<RunRecord> now;
            for (const agent::RunDeletion &deletion : std::as_const(reply))
                if (const auto run = m_store->run(deletion.run); run.ok() && run.value)
                    now.append(*run.value);
            if (const QString refused = refusal(now); !refused.isEmpty())
                return operation->fail(refused);
            runCommand(
                operation, removals + QStringLiteral("true"),
                [this, operation, reply, then](int, const QByteArray &removedOut, const QByteArray &err) mutable {
                    const QList<QByteArray> said = removedOut.split('\n');
                    QStringList refused;
                    for (qsizetype i = 0; i < reply.size(); ++i) {
                        const QByteArray word = i < said.size() ? said.at(i).trimmed() : QByteArray();
                        reply[i].removedDirectory = word == "removed";
                        if (word != "removed" && word != "gone")
                            refused.append(reply[i].directory);
                    }
                    if (!refused.isEmpty())
                        return operation->fail(
                            tr("not removed on %1: %2 (%3); the runs stay in the store")
                                .arg(name(), refused.join(QStringLiteral(", ")), QString::fromUtf8(err.trimmed())));
                    then(reply);
                },
                failed, deleteDeadlineMs);
        },
        failed, deleteDeadlineMs);
}

SessionOperation *ClusterSession::annotateRun(const QString &runId, const std::optional<QString> &name,
                                              const std::optional<QString> &note, const QStringList &addTags,
                                              const QStringList &removeTags)
{
    for (const QString &tag : addTags)
        if (const QString error = tagError(tag); !error.isEmpty())
            return SessionOperation::alreadyFailed(error, this);
    if (name && name->trimmed().isEmpty())
        return SessionOperation::alreadyFailed(tr("a run's name cannot be empty"), this);
    if (const QString error = name ? annotationError(tr("a run's name"), *name, false) : QString(); !error.isEmpty())
        return SessionOperation::alreadyFailed(error, this);
    if (const QString error = note ? annotationError(tr("a run's note"), *note, true) : QString(); !error.isEmpty())
        return SessionOperation::alreadyFailed(error, this);
    const auto run = m_store->run(runId);
    if (!run.ok())
        return SessionOperation::alreadyFailed(run.error, this);
    if (!run.value || run.value->cluster != this->name())
        return SessionOperation::alreadyFailed(tr("no run %1 on %2").arg(runId, this->name()), this);
    RunAnnotation annotation;
    annotation.name = name ? std::optional<QString>(name->trimmed()) : std::nullopt;
    annotation.note = note;
    if (!addTags.isEmpty() || !removeTags.isEmpty())
        annotation.tags = editedTags(run.value->tags, addTags, removeTags);
    if (const StoreStatus saved = m_store->annotateRun(runId, annotation); !saved.ok())
        return SessionOperation::alreadyFailed(saved.error, this);
    emit runUpdated(runId);
    const auto now = m_store->run(runId);
    const RunRecord record = now.ok() && now.value ? *now.value : *run.value;
    return SessionOperation::alreadyFinishedWith(agent::AnnotateRun::Reply{record.name, record.note, record.tags},
                                                 this);
}

} // namespace torchdeck
