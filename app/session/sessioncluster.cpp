// ClusterSession's operations on the cluster as a whole: "Check cluster" and the code snapshots under the work
// directory.
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/agent/agentops.h"
#include "core/code/coderemote.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/runlayout.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "remote/clustercheck.h"
#include "session/internal/sessioninternals.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck {

namespace {
constexpr int pruneDeadlineMs = 5 * 60 * 1000; // a prune reads every manifest

// The snapshots the store's unfinished runs of this cluster use: a prune keeps them.
QStringList snapshotsInUse(RunStore *store, const QString &cluster)
{
    QStringList keep;
    const auto runs = store->runs(cluster);
    for (const RunRecord &run : runs.value) {
        if (run.hasEnded())
            continue;
        const JobSpec::FromJson spec = run.spec();
        if (spec.ok() && !spec.spec.codeSnapshot.isEmpty() && !keep.contains(spec.spec.codeSnapshot))
            keep.append(spec.spec.codeSnapshot);
    }
    return keep;
}
} // namespace

SessionOperation *ClusterSession::check(const ClusterCheckSettings &settings)
{
    auto *operation = new SessionOperation(this);
    whenConnected(
        operation,
        [this, operation, settings] {
            auto *check = new remote::ClusterCheck(&m_parts->connection, settings, operation);
            connect(check, &remote::ClusterCheck::itemChecked, operation,
                    [operation](const CheckItem &item) { operation->report(agent::ItemEvent{item}); });
            connect(check, &remote::ClusterCheck::finished, operation,
                    [operation](const QList<CheckItem> &items) { operation->finishWith(agent::Check::Reply{items}); });
            check->start();
        },
        [operation](const QString &error) { operation->fail(error); });
    return operation;
}

SessionOperation *ClusterSession::codeSnapshots()
{
    auto *operation = new SessionOperation(this);
    SessionOperation *work = workDirectoryOperation();
    connect(work, &SessionOperation::failed, operation, &SessionOperation::fail);
    onReply<agent::WorkDirectory>(work, operation, [this, operation](const agent::WorkDirectory::Reply &resolved) {
        const CodeStore code{WorkLayout{resolved.directory}.codeStore()};
        runCommand(
            operation, code.listCommand(),
            [this, operation](int exitCode, const QByteArray &out, const QByteArray &err) {
                if (exitCode != 0)
                    return operation->fail(
                        tr("cannot list the code snapshots on %1: %2").arg(name(), QString::fromUtf8(err.trimmed())));
                agent::CodeSnapshots::Reply listed;
                for (const QByteArray &line : out.split('\n')) {
                    const QList<QByteArray> words = line.split(' ');
                    if (words.size() != 5 || words.at(0) != "manifest")
                        continue;
                    listed.snapshots.append({QString::fromLatin1(words.at(1)), words.at(2).toLongLong(),
                                             words.at(3).toLongLong(), words.at(4).toLongLong()});
                }
                operation->finishWith(listed);
            },
            [this, operation](const QString &error) {
                operation->fail(tr("cannot list the code snapshots on %1: %2").arg(name(), error));
            });
    });
    return operation;
}

SessionOperation *ClusterSession::pruneCodeSnapshots()
{
    auto *operation = new SessionOperation(this);
    // What is still running decides what stays: states as the scheduler says them now.
    SessionOperation *pass = refreshOperation({}, 0);
    connect(pass, &SessionOperation::failed, operation, &SessionOperation::fail);
    connect(pass, &SessionOperation::finished, operation, [this, operation] {
        SessionOperation *work = workDirectoryOperation();
        connect(work, &SessionOperation::failed, operation, &SessionOperation::fail);
        onReply<agent::WorkDirectory>(work, operation, [this, operation](const agent::WorkDirectory::Reply &resolved) {
            const CodeStore code{WorkLayout{resolved.directory}.codeStore()};
            const QStringList keep = snapshotsInUse(m_store, name());
            runCommand(
                operation, code.pruneCommand(keep),
                [this, operation, keep](int exitCode, const QByteArray &out, const QByteArray &err) {
                    if (exitCode != 0)
                        return operation->fail(tr("pruning the code snapshots on %1 failed: %2")
                                                   .arg(name(), QString::fromUtf8(err.trimmed())));
                    agent::PruneCode::Reply summary;
                    summary.kept = keep.size();
                    for (const QByteArray &line : out.split('\n')) {
                        const QList<QByteArray> words = line.split(' ');
                        if (words.size() == 3 && words.at(1) == "manifest")
                            summary.deleted.append(QString::fromLatin1(words.at(2)));
                        else if (words.size() == 4 && words.at(1) == "objects") {
                            summary.objects = words.at(2).toLongLong();
                            summary.bytes = words.at(3).toLongLong();
                        }
                    }
                    operation->finishWith(summary);
                },
                [this, operation](const QString &error) {
                    operation->fail(tr("pruning the code snapshots on %1 failed: %2").arg(name(), error));
                },
                pruneDeadlineMs);
        });
    });
    return operation;
}

} // namespace torchdeck
