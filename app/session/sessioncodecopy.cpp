// ClusterSession's copy of a run's code snapshot from another cluster (`resume --on` and moves of a run of `--code`):
// the manifest read there and checked against the snapshot's id, placed here unless it is, then only the objects this
// cluster lacks, each pulled from the run's own hard links there, checked by its SHA-256, and uploaded read-only.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/code/coderemote.h"
#include "core/code/codesnapshot.h"
#include "core/jobs/runlayout.h"
#include "core/runs/runfiles.h"
#include "core/shellquote.h"
#include "session/internal/sessioninternals.h"
#include "session/internal/straightcopy.h"

#include <QDir>
#include <QFile>
#include <QSet>

namespace torchdeck {

namespace {
struct CodeObject {
    QString object; // its SHA-256, "x" appended for an executable
    QString path;   // a file of the snapshot with that content
};

// Each object of a manifest once, with a path that has it; only those in `wanted`.
QList<CodeObject> objectsOf(const QByteArray &manifest, QSet<QString> wanted)
{
    QList<CodeObject> objects;
    const QList<QByteArray> fields = manifest.split('\0');
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
        const QString object = QString::fromLatin1(fields.at(i));
        if (wanted.remove(object))
            objects.append({object, QString::fromUtf8(fields.at(i + 1))});
    }
    return objects;
}

} // namespace

struct CodeCopyState {
    ClusterSession *source = nullptr;
    QString runId;
    QString id;
    QString local; // this machine's folder for the objects on their way
    QString here;  // this cluster's code store
    QString there; // the source's
    QString reach; // how this login node reaches the source's (ClusterProfile::reach); empty: through this machine
    QList<CodeObject> missing;
    qsizetype next = 0;
};

void ClusterSession::copyCodeSnapshot(SessionOperation *operation, ClusterSession *source, const QString &runId,
                                      const QString &id, const QString &local, const std::function<void()> &then)
{
    const auto failed = [operation](const QString &why) { operation->fail(why); };
    if (!isCodeSnapshotId(id))
        return failed(tr("not a code snapshot id: %1").arg(id));
    operation->reportProgress(tr("Reading code snapshot %1 on %2").arg(id, source->name()), 0, 0);
    SessionOperation *there = source->workDirectoryOperation();
    connect(there, &SessionOperation::failed, operation, failed);
    onReply<agent::WorkDirectory>(there, operation, [=](const agent::WorkDirectory::Reply &thereWork) {
        const QString manifestThere = CodeStore{WorkLayout{thereWork.directory}.codeStore()}.manifestPath(id);
        source->runCommand(
            operation, QStringLiteral("cat -- %1").arg(shellQuote(manifestThere)),
            [=](int code, const QByteArray &manifest, const QByteArray &err) {
                if (code != 0 || codeSnapshotIdOf(manifest) != id)
                    return failed(tr("code snapshot %1 on %2 is gone or damaged: %3")
                                      .arg(id, source->name(),
                                           code != 0 ? QString::fromUtf8(err.trimmed()) : tr("its manifest differs")));
                SessionOperation *resolving = workDirectoryOperation();
                connect(resolving, &SessionOperation::failed, operation, failed);
                onReply<agent::WorkDirectory>(resolving, operation, [=](const agent::WorkDirectory::Reply &work) {
                    auto copy = std::make_shared<CodeCopyState>();
                    *copy = {source,
                             runId,
                             id,
                             local,
                             WorkLayout{work.directory}.codeStore(),
                             WorkLayout{thereWork.directory}.codeStore(),
                             m_profile.reachArgs(source->name()),
                             {},
                             0};
                    const CodeStore store{copy->here};
                    runCommand(
                        operation,
                        store.prepareCommand() + QStringLiteral(" >/dev/null && ") + store.manifestPresentCommand(id),
                        [=](int prepared, const QByteArray &present, const QByteArray &why) {
                            if (prepared != 0)
                                return failed(tr("cannot make the code store on %1: %2")
                                                  .arg(name(), QString::fromUtf8(why.trimmed())));
                            const auto findMissing = [=] { copyMissingObjects(operation, copy, manifest, then); };
                            if (present.trimmed() == "present")
                                return findMissing();
                            remote::RemoteUpload *upload =
                                m_parts->connection.uploadData(manifest, store.manifestPath(id), 0600);
                            connect(upload, &remote::RemoteUpload::failed, operation, [failed](const QString &e) {
                                failed(tr("uploading the code's manifest: %1").arg(e));
                            });
                            connect(upload, &remote::RemoteUpload::finished, operation,
                                    [findMissing] { findMissing(); });
                        },
                        failed);
                });
            },
            failed);
    });
}

void ClusterSession::copyMissingObjects(SessionOperation *operation, const std::shared_ptr<CodeCopyState> &copy,
                                        const QByteArray &manifest, const std::function<void()> &then)
{
    const auto failed = [operation](const QString &why) { operation->fail(why); };
    runCommand(
        operation, CodeStore{copy->here}.missingObjectsCommand(copy->id),
        [=](int code, const QByteArray &out, const QByteArray &err) {
            if (code != 0)
                return failed(tr("comparing the code with %1's: %2").arg(name(), QString::fromUtf8(err.trimmed())));
            QSet<QString> wanted;
            for (const QByteArray &line : out.split('\n'))
                if (!line.isEmpty())
                    wanted.insert(QString::fromLatin1(line));
            copy->missing = objectsOf(manifest, wanted);
            if (copy->reach.isEmpty() || copy->missing.isEmpty())
                return copyNextObject(operation, copy, then);
            // Straight from the other login node where this one reaches it, else through this machine.
            QList<StraightFile> straight;
            for (const CodeObject &object : std::as_const(copy->missing))
                straight.append({CodeStore{copy->there}.objectPath(object.object),
                                 CodeStore{copy->here}.objectPath(object.object), codeObjectSha256(object.object),
                                 codeObjectMode(object.object), object.path});
            operation->reportProgress(tr("Copying the code straight from %1 to %2").arg(copy->source->name(), name()),
                                      0, 0);
            const auto throughThisMachine = [=](const QString &why) {
                operation->reportOutput(
                    tr("The straight copy of the code from %1 failed (%2): copying through this machine\n")
                        .arg(copy->source->name(), why));
                copyNextObject(operation, copy, then);
            };
            runCommand(
                operation, straightCopyCommand(copy->reach, straight),
                [=](int straightCode, const QByteArray &, const QByteArray &straightErr) {
                    const QString why = QString::fromUtf8(straightErr.trimmed()).section(u'\n', -2);
                    if (straightCode == 0) {
                        operation->reportOutput(tr("Copied %n object(s) of the code straight from %1 to %2\n", nullptr,
                                                   int(copy->missing.size()))
                                                    .arg(copy->source->name(), name()));
                        return then();
                    }
                    throughThisMachine(why);
                },
                throughThisMachine, kStraightCopyDeadlineMs);
        },
        failed);
}

void ClusterSession::copyNextObject(SessionOperation *operation, const std::shared_ptr<CodeCopyState> &copy,
                                    const std::function<void()> &then)
{
    if (copy->next >= copy->missing.size()) {
        QDir(copy->local + QStringLiteral("/code")).removeRecursively();
        return then();
    }
    const CodeObject object = copy->missing.at(copy->next++);
    operation->reportProgress(tr("Copying the code to %1").arg(name()), copy->next - 1, copy->missing.size());
    const QString folder = copy->local + QStringLiteral("/code/") + object.object;
    // The run's directory there holds the snapshot's files as hard links to their objects (CodeStore::linkCommand).
    SessionOperation *pull = copy->source->pullRunFiles(copy->runId, {kRunCodeFolder + u'/' + object.path}, {}, folder);
    connect(pull, &SessionOperation::failed, operation, [operation, object](const QString &why) {
        operation->fail(tr("cannot fetch %1 of the code: %2").arg(object.path, why));
    });
    onReply<agent::Pull>(pull, operation, [=](const agent::Pull::Reply &reply) {
        if (reply.pulled.isEmpty() || reply.pulled.constFirst().sha256 != codeObjectSha256(object.object))
            return operation->fail(tr("%1 of the code on %2 is not the snapshot's (its content changed since)")
                                       .arg(object.path, copy->source->name()));
        const QString target = CodeStore{copy->here}.objectPath(object.object);
        remote::RemoteUpload *upload =
            m_parts->connection.upload(reply.pulled.constFirst().local, target, codeObjectMode(object.object));
        connect(upload, &remote::RemoteUpload::failed, operation, [operation, object](const QString &why) {
            operation->fail(tr("uploading %1 of the code: %2").arg(object.path, why));
        });
        connect(upload, &remote::RemoteUpload::finished, operation, [this, operation, copy, then, folder](qint64) {
            QDir(folder).removeRecursively();
            copyNextObject(operation, copy, then);
        });
    });
}

} // namespace torchdeck
