// ClusterSession's copy of a run's checkpoint straight from another cluster (`resume --on`, a move), where this
// cluster's profile says how its login node reaches the other's (`reach`): `ssh ARGS cat` there, into a partial file
// here, its SHA-256 checked against the other cluster's before it takes its name. Nothing passes through this machine.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/runlayout.h"
#include "core/runs/runfiles.h"
#include "core/shellquote.h"
#include "session/internal/sessioninternals.h"

#include <QLocale>

namespace torchdeck {

namespace {
constexpr int straightDeadlineMs = 3600000; // some GiB between two sites

// Copies each file from the other login node into the run's directory here; fails, leaving nothing half-copied,
// at the first that cannot be fetched or differs from its SHA-256 there.
QString straightCopyCommand(const QString &reach, const QList<RemoteFileSum> &files, const QString &runDirectory)
{
    QStringList lines{QStringLiteral("umask 077")};
    for (const RemoteFileSum &file : files) {
        const QString target = runDirectory + u'/' + file.path;
        const QString part = target + QStringLiteral(".torchdeck-part");
        const QString there = shellQuote(QStringLiteral("cat -- ") + shellQuote(file.realPath));
        lines.append(QStringLiteral("mkdir -p -- %1 && ssh -o BatchMode=yes -o ConnectTimeout=15 %2 %3 > %4 && "
                                    "[ \"$(sha256sum < %4 | cut -c1-64)\" = %5 ] && chmod 600 %4 && mv -f -- %4 %6 || "
                                    "{ rm -f -- %4; echo \"%7 was not copied whole\" >&2; exit 1; }")
                         .arg(shellQuote(target.section(u'/', 0, -2)), reach, there, shellQuote(part),
                              shellQuote(file.sha256), shellQuote(target), file.path));
    }
    return lines.join(u'\n');
}
} // namespace

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
                    runCommand(
                        operation, straightCopyCommand(reach, files, directory),
                        [=](int code, const QByteArray &, const QByteArray &err) {
                            if (code != 0)
                                return fallBack(QString::fromUtf8(err.trimmed()).section(u'\n', -2));
                            operation->reportOutput(tr("Copied %1 straight from %2 to %3 (%4, SHA-256 checked)\n")
                                                        .arg(file.path, source->name(), name(),
                                                             QLocale::c().formattedDataSize(file.bytes)));
                            done(directory + u'/' + file.path);
                        },
                        fallBack, straightDeadlineMs);
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
