// ClusterSession's changes to whole runs: deleting them (their records, and with `remote` their directories on the
// cluster), and what the user calls them and wrote of them.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/runs/runfiles.h"
#include "core/store/runstore.h"
#include "session/internal/sessioninternals.h"

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

SessionOperation *ClusterSession::deleteRuns(const QStringList &runIds, bool remote, bool dryRun)
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
            operation, [this, operation, runs, dryRun] { removeRuns(operation, runs, false, dryRun); },
            Qt::QueuedConnection);
        return operation;
    }
    // What the store says of a run that has not ended may be old: a pass first, so a run that just ended can go and a
    // job that just started is seen.
    SessionOperation *pass = refreshOperation(runIds, 0);
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation, [this, operation, runIds, remote, dryRun] {
        QList<RunRecord> current;
        for (const QString &id : runIds)
            if (const auto run = m_store->run(id); run.ok() && run.value)
                current.append(*run.value);
        removeRuns(operation, current, remote, dryRun);
    });
    return operation;
}

void ClusterSession::removeRuns(SessionOperation *operation, const QList<RunRecord> &runs, bool remote, bool dryRun)
{
    QStringList refusals;
    agent::DeleteRuns::Reply reply;
    QString sizes;
    QString removals;
    for (const RunRecord &run : runs) {
        const auto jobs = m_store->jobs(run.id);
        if (!jobs.ok())
            return operation->fail(jobs.error);
        if (const QStringList going = goingOn(run, jobs.value); !going.isEmpty())
            refusals.append(tr("run %1 (%2) still goes on: %3; `torchdeck cancel %1` first")
                                .arg(run.id.left(8), run.name, going.join(QStringLiteral(", "))));
        agent::RunDeletion deletion;
        deletion.run = run.id;
        deletion.name = run.name;
        deletion.directory = runDirectoryOn(name(), run.id, jobs.value, workDirectory());
        reply.runs.append(deletion);
        if (!deletion.directory.isEmpty()) {
            sizes += runDirectorySizeCommand(deletion.directory) + QStringLiteral("; ");
            removals += removeRunDirectoryCommand(deletion.directory, run.id) + QStringLiteral("; ");
        } else {
            sizes += QStringLiteral("echo -; ");
            removals += QStringLiteral("echo gone; ");
        }
    }
    if (!refusals.isEmpty())
        return operation->fail(refusals.join(u'\n'));
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
    const auto failed = [this, operation](const QString &error) {
        operation->fail(tr("deleting on %1 failed: %2").arg(name(), error));
    };
    runCommand(
        operation, sizes + QStringLiteral("true"),
        [this, operation, reply, removals, dryRun, forget, failed](int, const QByteArray &out,
                                                                   const QByteArray &) mutable {
            const QList<QByteArray> lines = out.split('\n');
            for (qsizetype i = 0; i < reply.runs.size(); ++i) {
                bool ok = false;
                const qint64 bytes = i < lines.size() ? lines.at(i).trimmed().toLongLong(&ok) : -1;
                reply.runs[i].bytes = ok ? bytes : -1;
            }
            if (dryRun)
                return operation->finishWith(reply);
            runCommand(
                operation, removals + QStringLiteral("true"),
                [operation, reply, forget](int, const QByteArray &removedOut, const QByteArray &err) mutable {
                    const QList<QByteArray> said = removedOut.split('\n');
                    QStringList refused;
                    for (qsizetype i = 0; i < reply.runs.size(); ++i) {
                        const QByteArray word = i < said.size() ? said.at(i).trimmed() : QByteArray();
                        reply.runs[i].removedDirectory = word == "removed";
                        if (word != "removed" && word != "gone")
                            refused.append(reply.runs[i].directory);
                    }
                    if (!refused.isEmpty())
                        return operation->fail(
                            tr("not removed: %1 (%2); the runs stay in the store")
                                .arg(refused.join(QStringLiteral(", ")), QString::fromUtf8(err.trimmed())));
                    forget(reply);
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
