// ClusterSession's operations on the cluster as a whole: "Check cluster" and the code snapshots under the work
// directory.
#include "core/agent/agentcodec.h"
#include "core/code/coderemote.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/runlayout.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runstore.h"
#include "remote/clustercheck.h"
#include "session/internal/sessioninternals.h"
#include "session/sessionoperation.h"

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
            connect(check, &remote::ClusterCheck::itemChecked, operation, [operation](const CheckItem &item) {
                operation->reportEvent(QStringLiteral("item"), checkItemToCbor(item));
            });
            connect(check, &remote::ClusterCheck::finished, operation, [operation](const QList<CheckItem> &items) {
                QCborArray all;
                for (const CheckItem &item : items)
                    all.append(checkItemToCbor(item));
                operation->finish(QCborMap{{QStringLiteral("items"), all}});
            });
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
    connect(work, &SessionOperation::finished, operation, [this, operation](const QCborValue &result) {
        const CodeStore code{WorkLayout{result.toMap().value(QStringLiteral("directory")).toString()}.codeStore()};
        runCommand(
            operation, code.listCommand(),
            [this, operation](int exitCode, const QByteArray &out, const QByteArray &err) {
                if (exitCode != 0)
                    return operation->fail(
                        tr("cannot list the code snapshots on %1: %2").arg(name(), QString::fromUtf8(err.trimmed())));
                QCborArray snapshots;
                for (const QByteArray &line : out.split('\n')) {
                    const QList<QByteArray> words = line.split(' ');
                    if (words.size() != 5 || words.at(0) != "manifest")
                        continue;
                    snapshots.append(QCborMap{{QStringLiteral("id"), QString::fromLatin1(words.at(1))},
                                              {QStringLiteral("files"), words.at(2).toLongLong()},
                                              {QStringLiteral("bytes"), words.at(3).toLongLong()},
                                              {QStringLiteral("time"), words.at(4).toLongLong()}});
                }
                operation->finish(QCborMap{{QStringLiteral("snapshots"), snapshots}});
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
        connect(work, &SessionOperation::finished, operation, [this, operation](const QCborValue &result) {
            const CodeStore code{WorkLayout{result.toMap().value(QStringLiteral("directory")).toString()}.codeStore()};
            const QStringList keep = snapshotsInUse(m_store, name());
            runCommand(
                operation, code.pruneCommand(keep),
                [this, operation, keep](int exitCode, const QByteArray &out, const QByteArray &err) {
                    if (exitCode != 0)
                        return operation->fail(tr("pruning the code snapshots on %1 failed: %2")
                                                   .arg(name(), QString::fromUtf8(err.trimmed())));
                    QCborMap summary{{QStringLiteral("kept"), keep.size()}};
                    QCborArray deleted;
                    for (const QByteArray &line : out.split('\n')) {
                        const QList<QByteArray> words = line.split(' ');
                        if (words.size() == 3 && words.at(1) == "manifest")
                            deleted.append(QString::fromLatin1(words.at(2)));
                        else if (words.size() == 4 && words.at(1) == "objects") {
                            summary.insert(QStringLiteral("objects"), words.at(2).toLongLong());
                            summary.insert(QStringLiteral("bytes"), words.at(3).toLongLong());
                        }
                    }
                    summary.insert(QStringLiteral("deleted"), deleted);
                    operation->finish(summary);
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
