// ClusterSession's reading of the cluster's shape: its partitions (PBS: queues), the user's accounts and their QOS,
// read once connected and before a submission when older than half a day, kept in the profile for every front.
#include "core/profiles/accountlimits.h"
#include "core/profiles/partitionshape.h"
#include "session/clustersession.h"

#include <QPointer>

namespace torchdeck {

namespace {
constexpr qint64 kShapeRetrySeconds = 600; // after a failed read: not once per submission
constexpr int kShapeDeadlineMs = 20000;    // each command: sinfo and sacctmgr answer in a second or two
} // namespace

bool ClusterSession::shapeIsFresh() const
{
    return m_profile.shapeIsFresh();
}

bool ClusterSession::shapeReadWaits() const
{
    return m_shapeTriedAt.isValid() && m_shapeTriedAt.secsTo(QDateTime::currentDateTimeUtc()) < kShapeRetrySeconds;
}

void ClusterSession::readShape(QObject *context, const std::function<void(const QString &)> &then)
{
    // A read in flight (the one on connecting) is waited for: its shape is the one to check against.
    if (!m_readingShape && shapeIsFresh())
        return then({}); // read here, or by a check whose findings the profile took
    if (!m_readingShape && shapeReadWaits())
        return then(m_shapeProblem); // the last read's failure, while it is not tried again
    m_shapeWaiters.append({QPointer<QObject>(context), then});
    if (m_readingShape)
        return;
    m_readingShape = true;
    m_shapeTriedAt = QDateTime::currentDateTimeUtc();
    auto shape = std::make_shared<ClusterProfile>(m_profile);
    const auto finish = [this, shape](const QString &problem) {
        m_readingShape = false;
        m_shapeProblem = problem;
        if (problem.isEmpty()) {
            shape->partitionsReadAt = QDateTime::currentDateTimeUtc();
            m_profile.adoptNewerShape(*shape);
            emit shapeRead(name(), *shape);
        }
        const QList<ShapeWaiter> waiters = std::exchange(m_shapeWaiters, {});
        for (const ShapeWaiter &waiter : waiters) {
            if (waiter.context)
                waiter.then(problem);
        }
    };
    // The partitions: without them nothing is checked. A hung command (a stalled file system or controller on the
    // login node) holds a submission for kShapeDeadlineMs at most.
    const auto partitionsFailed = [finish](const QString &command, const QString &why) {
        finish(tr("%1 did not answer: %2").arg(command, why));
    };
    if (m_profile.scheduler == SchedulerKind::Pbs) {
        runCommand(
            this, qstatQueuesCommand(),
            [shape, finish](int exitCode, const QByteArray &out, const QByteArray &) {
                shape->partitions = parseQstatQueues(out);
                finish(exitCode != 0                 ? tr("qstat -Qf exited %1").arg(exitCode)
                       : shape->partitions.isEmpty() ? tr("qstat -Qf listed no queues")
                                                     : QString());
            },
            [partitionsFailed](const QString &why) { partitionsFailed(QStringLiteral("qstat -Qf"), why); },
            kShapeDeadlineMs);
        return;
    }
    // Accounting where the cluster keeps it: its limits are the user's, read after the partitions.
    // A sacctmgr that does not answer (a busy accounting database) leaves the limits read before as they were.
    const auto keepEarlierLimits = [this, shape, finish](const QString &) {
        shape->accounts = m_profile.accounts;
        shape->qos = m_profile.qos;
        finish({});
    };
    const auto readQos = [this, shape, finish] {
        runCommand(
            this, sacctmgrQosCommand(),
            [shape, finish](int exitCode, const QByteArray &out, const QByteArray &) {
                shape->qos = exitCode == 0 ? parseSacctmgrQos(out) : QList<QosLimits>{};
                finish({});
            },
            [this, shape, finish](const QString &) {
                shape->qos = m_profile.qos;
                finish({});
            },
            kShapeDeadlineMs);
    };
    const auto readAccounts = [this, shape, finish, readQos, keepEarlierLimits] {
        runCommand(
            this, sacctmgrAssociationsCommand(),
            [shape, finish, readQos](int exitCode, const QByteArray &out, const QByteArray &) {
                shape->accounts = exitCode == 0 ? parseSacctmgrAssociations(out) : QList<AccountAccess>{};
                if (shape->accounts.isEmpty()) {
                    shape->qos.clear();
                    return finish({});
                }
                readQos();
            },
            keepEarlierLimits, kShapeDeadlineMs);
    };
    runCommand(
        this, sinfoPartitionsCommand(),
        [this, shape, finish, readAccounts](int exitCode, const QByteArray &out, const QByteArray &) {
            QString defaultPartition;
            shape->partitions = parseSinfoPartitions(out, &defaultPartition);
            if (exitCode != 0)
                return finish(tr("sinfo exited %1").arg(exitCode));
            if (shape->partitions.isEmpty())
                return finish(tr("sinfo listed no partitions"));
            shape->accounts.clear();
            shape->qos.clear();
            if (m_profile.slurmHistory != SlurmHistory::Accounting)
                return finish({}); // no accounting database: sacctmgr has nothing to say
            readAccounts();
        },
        [partitionsFailed](const QString &why) { partitionsFailed(QStringLiteral("sinfo"), why); }, kShapeDeadlineMs);
}

} // namespace torchdeck
