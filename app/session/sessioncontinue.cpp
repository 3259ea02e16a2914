// ClusterSession's continuing of a run from another cluster (`resume RUN --on CLUSTER`): the checkpoint pulled from
// the run's cluster to this machine, placed in the run's directory here and checked, then the next attempt sent here.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/jobspecvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/privatefiles.h"
#include "core/runs/launchrequest.h"
#include "core/runs/runfiles.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "session/internal/sessioninternals.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace torchdeck {

namespace {
constexpr int checkDeadlineMs = 300000; // sha256sum of a checkpoint of some GiB on a busy login node

// How the pull names the checkpoint `from` asks for: "latest", a file name or a step.
QString checkpointToPull(const ResumeFrom &from)
{
    if (from.kind() != ResumeFrom::Kind::Checkpoint)
        return QStringLiteral("latest");
    return from.checkpoint().section(u'/', -1);
}

// Progress, output, events and the end of `inner` reported as `outer`'s.
void relay(SessionOperation *inner, SessionOperation *outer)
{
    QObject::connect(inner, &SessionOperation::progress, outer, &SessionOperation::reportProgress);
    QObject::connect(inner, &SessionOperation::output, outer, &SessionOperation::reportOutput);
    QObject::connect(inner, &SessionOperation::event, outer, &SessionOperation::reportEvent);
    QObject::connect(inner, &SessionOperation::finished, outer, &SessionOperation::finish);
    QObject::connect(inner, &SessionOperation::failed, outer, &SessionOperation::fail);
}
} // namespace

SessionOperation *ClusterSession::continueRun(const QString &runId, const ResumeFrom &from, const QString &epochs,
                                              const std::function<ClusterSession *(const QString &)> &sessionOf,
                                              const QString &moving)
{
    const auto run = m_store->run(runId);
    if (!run.ok() || !run.value)
        return SessionOperation::alreadyFailed(run.ok() ? tr("no run %1").arg(runId.left(8)) : run.error, this);
    if (run.value->cluster == name())
        return resume(runId, from, epochs, moving);
    QString error;
    // Refused before anything is copied when the run cannot go on (still running, no such checkpoint).
    if (!resumeRequest(*m_store, m_profile, *run.value, from, epochs, &error, moving))
        return SessionOperation::alreadyFailed(error, this);
    const JobSpec::FromJson spec = run.value->spec();
    const QString snapshot = spec.ok() ? spec.spec.codeSnapshot : QString();
    if (from.kind() == ResumeFrom::Kind::Scratch && snapshot.isEmpty())
        return resume(runId, from, epochs, moving); // nothing to carry over
    ClusterSession *source = sessionOf(run.value->cluster);
    if (!source)
        return SessionOperation::alreadyFailed(
            tr("run %1 is on %2, which is no longer in your ssh config: its checkpoint cannot be fetched")
                .arg(runId.left(8), run.value->cluster),
            this);
    const QString local = QFileInfo(m_store->path()).dir().filePath(QStringLiteral("moving/") + runId);
    if (const QString problem = makePrivateDirectory(local); !problem.isEmpty())
        return SessionOperation::alreadyFailed(problem, this);
    auto *operation = new SessionOperation(this);
    // The code first (a run of `--code`), then the checkpoint, then the attempt.
    const auto carryCheckpoint = [this, operation, runId, from, epochs, moving, source, local] {
        if (from.kind() == ResumeFrom::Kind::Scratch)
            return relay(resume(runId, from, epochs, moving), operation);
        pullAndPlaceCheckpoint(operation, source, runId, from, epochs, moving, local);
    };
    if (snapshot.isEmpty())
        carryCheckpoint();
    else
        copyCodeSnapshot(operation, source, runId, snapshot, local, carryCheckpoint);
    return operation;
}

void ClusterSession::pullAndPlaceCheckpoint(SessionOperation *operation, ClusterSession *source, const QString &runId,
                                            const ResumeFrom &from, const QString &epochs, const QString &moving,
                                            const QString &local, bool straight)
{
    const QString sourceName = source->name();
    if (const QString reach = m_profile.reachArgs(sourceName); straight && !reach.isEmpty())
        return copyCheckpointStraight(
            operation, source, runId, checkpointToPull(from), reach,
            [this, operation, runId, epochs, moving](const QString &placed) {
                relay(resume(runId, ResumeFrom::checkpoint(placed), epochs, moving), operation);
            },
            [this, operation, source, runId, from, epochs, moving, local](const QString &why) {
                operation->reportOutput(tr("The straight copy from %1 failed (%2): copying through this machine\n")
                                            .arg(source->name(), why));
                pullAndPlaceCheckpoint(operation, source, runId, from, epochs, moving, local, false);
            });
    // Pulled through this machine: clusters seldom reach each other over SSH with the user's keys.
    operation->reportProgress(tr("Fetching the checkpoint of run %1 from %2").arg(runId.left(8), sourceName), 0, 0);
    SessionOperation *pull = source->pullRunFiles(runId, {}, checkpointToPull(from), local);
    connect(pull, &SessionOperation::progress, operation,
            [operation, sourceName](const QString &step, qint64 done, qint64 total) {
                operation->reportProgress(tr("%1 from %2").arg(step, sourceName), done, total);
            });
    connect(pull, &SessionOperation::failed, operation, [operation, sourceName](const QString &why) {
        operation->fail(tr("cannot fetch the checkpoint from %1: %2").arg(sourceName, why));
    });
    onReply<agent::Pull>(
        pull, operation, [this, operation, runId, epochs, source, local, moving](const agent::Pull::Reply &r) {
            if (r.pulled.isEmpty())
                return operation->fail(tr("the pull of the checkpoint brought nothing"));
            const agent::PulledFile checkpoint = r.pulled.constFirst();
            if (!checkpoint.keptAs.isEmpty()) // an older copy in torchdeck's own folder: nobody's to keep
                QFile::remove(checkpoint.keptAs);
            // Its sidecar too, where the trainer wrote one: a checkpoint without it reads as torn to the trainer.
            SessionOperation *sidecar =
                source->pullRunFiles(runId, {checkpoint.path + QStringLiteral(".json")}, {}, local);
            const auto place = [this, operation, runId, epochs, checkpoint,
                                moving](const std::optional<agent::PulledFile> &json) {
                placeRunFile(operation, runId, checkpoint.path, checkpoint.local, checkpoint.sha256,
                             [this, operation, runId, epochs, checkpoint, json, moving](const QString &placed) {
                                 QFile::remove(checkpoint.local); // it is on the cluster now, checked
                                 const auto resumeThere = [this, operation, runId, epochs, placed, moving] {
                                     relay(resume(runId, ResumeFrom::checkpoint(placed), epochs, moving), operation);
                                 };
                                 if (!json)
                                     return resumeThere();
                                 placeRunFile(operation, runId, json->path, json->local, json->sha256,
                                              [json, resumeThere](const QString &) {
                                                  QFile::remove(json->local);
                                                  if (!json->keptAs.isEmpty())
                                                      QFile::remove(json->keptAs);
                                                  resumeThere();
                                              });
                             });
            };
            connect(sidecar, &SessionOperation::failed, operation, [place](const QString &) { place(std::nullopt); });
            onReply<agent::Pull>(sidecar, operation, [place](const agent::Pull::Reply &json) {
                place(json.pulled.isEmpty() ? std::nullopt
                                            : std::optional<agent::PulledFile>(json.pulled.constFirst()));
            });
        });
}

SessionOperation *ClusterSession::estimateRestart(const QString &runId, const QString &moving)
{
    const auto run = m_store->run(runId);
    if (!run.ok() || !run.value)
        return SessionOperation::alreadyFailed(run.ok() ? tr("no run %1").arg(runId.left(8)) : run.error, this);
    QString error;
    const auto request = resumeRequest(*m_store, m_profile, *run.value, ResumeFrom::latest(), {}, &error, moving);
    if (!request)
        return SessionOperation::alreadyFailed(error, this);
    auto *operation = new SessionOperation(this);
    SessionOperation *resolving = workDirectoryOperation();
    connect(resolving, &SessionOperation::failed, operation, &SessionOperation::fail);
    onReply<agent::WorkDirectory>(
        resolving, operation, [this, operation, request](const agent::WorkDirectory::Reply &w) {
            const SubmissionScript rendered =
                renderSubmission(*request, w.directory, trainerBinaryOn(m_profile, w.directory));
            if (!rendered.ok())
                return operation->fail(describeJobSpecErrors(rendered.errors));
            relay(estimateStart(rendered.script), operation);
        });
    return operation;
}

void ClusterSession::placeRunFile(SessionOperation *operation, const QString &runId, const QString &relative,
                                  const QString &localPath, const QString &sha256,
                                  const std::function<void(const QString &)> &then)
{
    const auto failed = [operation](const QString &why) { operation->fail(why); };
    // Where the run's directory is here: the work directory, resolved once connected.
    SessionOperation *resolving = workDirectoryOperation();
    connect(resolving, &SessionOperation::failed, operation, failed);
    onReply<agent::WorkDirectory>(
        resolving, operation,
        [this, operation, runId, relative, localPath, sha256, then, failed](const agent::WorkDirectory::Reply &work) {
            const QString target = WorkLayout{work.directory}.runDirectory(runId) + u'/' + relative;
            // The run's directory is the user's alone (its checkpoints), as a submission makes it. What an earlier
            // copy of this file left when its connection dropped goes: no other copy of this run's file runs meanwhile.
            runCommand(
                operation, QStringLiteral("umask 077 && ") + removeCopyLeftoversCommand(target),
                [this, operation, relative, localPath, sha256, then, target, failed](int exitCode, const QByteArray &,
                                                                                     const QByteArray &err) {
                    if (exitCode != 0)
                        return operation->fail(
                            tr("cannot make %1 on %2: %3")
                                .arg(target.section(u'/', 0, -2), name(), QString::fromUtf8(err.trimmed())));
                    remote::RemoteUpload *upload = m_parts->connection.upload(localPath, target, 0600);
                    const QString step = tr("%1 to %2").arg(relative, name());
                    connect(
                        upload, &remote::RemoteUpload::progress, operation,
                        [operation, step](qint64 done, qint64 total) { operation->reportProgress(step, done, total); });
                    connect(upload, &remote::RemoteUpload::failed, operation, [operation, step](const QString &why) {
                        operation->fail(tr("copying %1 stopped: %2").arg(step, why));
                    });
                    connect(
                        upload, &remote::RemoteUpload::finished, operation,
                        [this, operation, sha256, then, target, failed](qint64) {
                            runCommand(
                                operation, QStringLiteral("sha256sum -- %1").arg(shellQuote(target)),
                                [this, operation, sha256, then, target](int code, const QByteArray &out,
                                                                        const QByteArray &) {
                                    const QString there = QString::fromUtf8(out.left(64));
                                    if (code != 0 || there != sha256)
                                        return operation->fail(
                                            tr("%1 on %2 is not the checkpoint sent (SHA-256 %3, sent %4)")
                                                .arg(target, name(), there.isEmpty() ? tr("unread") : there, sha256));
                                    then(target);
                                },
                                failed, checkDeadlineMs);
                        });
                },
                failed);
        });
}

} // namespace torchdeck
