// ClusterSession's copy of a run's checkpoint straight from another cluster (`resume --on`, a move), where this
// cluster's profile says how its login node reaches the other's (`reach`): `ssh ARGS cat` there, into a partial file
// here, its SHA-256 checked against the other cluster's before it takes its name. Nothing passes through this machine.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/runlayout.h"
#include "core/runs/runfiles.h"
#include "session/internal/sessioninternals.h"
#include "session/internal/straightcopy.h"

#include <QLocale>

namespace torchdeck {

void ClusterSession::copyCheckpointStraight(SessionOperation *operation, ClusterSession *source, const QString &runId,
                                            const QString &checkpoint, const QString &reach,
                                            const std::function<void(const QString &)> &done,
                                            const std::function<void(const QString &)> &fallBack)
{
    const auto failed = [operation](const QString &why) { operation->fail(why); };
    source->sumRunFiles(
        operation, runId, {}, checkpoint,
        [=](const QList<RemoteFileSum> &sums, const QString &) {
            const RemoteFileSum file = sums.constFirst();
            const auto copy = [=](const QList<RemoteFileSum> &files) {
                SessionOperation *resolving = workDirectoryOperation();
                connect(resolving, &SessionOperation::failed, operation, failed);
                onReply<agent::WorkDirectory>(resolving, operation, [=](const agent::WorkDirectory::Reply &work) {
                    const QString directory = WorkLayout{work.directory}.runDirectory(runId);
                    operation->reportProgress(
                        tr("Copying %1 straight from %2 to %3").arg(file.path, source->name(), name()), 0, 0);
                    QList<StraightFile> straight;
                    // What an earlier copy of the run's files left when its connection dropped goes first.
                    QStringList commands{QStringLiteral("umask 077")};
                    for (const RemoteFileSum &each : files) {
                        straight.append({each.realPath, directory + u'/' + each.path, each.sha256, 0600, each.path});
                        commands.append(removeCopyLeftoversCommand(straight.constLast().to) +
                                        QStringLiteral(" || exit 1"));
                    }
                    commands.append(straightCopyCommand(reach, straight));
                    runCommand(
                        operation, commands.join(u'\n'),
                        [=](int code, const QByteArray &, const QByteArray &err) {
                            if (code != 0)
                                return fallBack(QString::fromUtf8(err.trimmed()).section(u'\n', -2));
                            operation->reportOutput(tr("Copied %1 straight from %2 to %3 (%4, SHA-256 checked)\n")
                                                        .arg(file.path, source->name(), name(),
                                                             QLocale::c().formattedDataSize(file.bytes)));
                            done(directory + u'/' + file.path);
                        },
                        fallBack, kStraightCopyDeadlineMs);
                });
            };
            // Its sidecar too, where the trainer wrote one: without it the trainer takes the checkpoint as torn.
            source->sumRunFiles(
                operation, runId, {file.path + QStringLiteral(".json")}, {},
                [=](const QList<RemoteFileSum> &json, const QString &) {
                    copy({file, json.constFirst()});
                },
                [=](const QString &) { copy({file}); });
        },
        failed);
}

} // namespace torchdeck
