// ClusterSession's forwards: a local port relayed to a port on a run's node over the session's connection.
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/runlayout.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/nodeaddress.h"
#include "core/shellquote.h"
#include "core/store/runstore.h"
#include "remote/schedulerclient.h"
#include "session/internal/portforwarder.h"
#include "session/internal/sessioninternals.h"

#include <QPointer>

namespace torchdeck {

namespace {
constexpr int nodeQueryDeadlineMs = 60000;
} // namespace

SessionOperation *ClusterSession::startForward(const QString &runId, int remotePort, int localPort)
{
    const auto jobs = m_store->jobs(runId);
    if (!jobs.ok())
        return SessionOperation::alreadyFailed(jobs.error, this);
    // The job that speaks for the run: the one that runs (a chain's next attempt waits behind it), else the
    // last that ran.
    const JobRecord *newest = jobs.value.isEmpty() ? nullptr : &jobs.value.at(speakingJob(jobs.value));
    if (!newest || newest->jobId.isEmpty())
        return SessionOperation::alreadyFailed(tr("run %1 has no job on %2").arg(runId.left(8), name()), this);
    for (const PortForwarder *forwarder : std::as_const(m_forwards)) {
        if (localPort != 0 && forwarder->forward().localPort == localPort)
            return SessionOperation::alreadyFailed(
                tr("localhost:%1 forwards to run %2 already").arg(localPort).arg(forwarder->forward().runId.left(8)),
                this);
    }
    auto *operation = new SessionOperation(this);
    PortForward forward;
    forward.cluster = name();
    forward.runId = runId;
    forward.remotePort = remotePort;
    const QString jobId = newest->jobId;
    findJobNode(
        operation, jobId, localStateDirectoryOf(newest->stdoutPath),
        [this, operation, forward, localPort](const QString &node, const QString &address) mutable {
            forward.node = node;
            forward.address = address;
            forwardTo(operation, forward, localPort);
        },
        [operation, runId](const QString &error) {
            operation->fail(tr("cannot forward to run %1: %2").arg(runId.left(8), error));
        });
    return operation;
}

void ClusterSession::findJobNode(QObject *context, const QString &jobId, const QString &localState,
                                 const std::function<void(const QString &, const QString &)> &then,
                                 const std::function<void(const QString &)> &failed)
{
    whenConnected(
        context,
        [this, context, jobId, localState, then, failed] {
            auto *client = new remote::SchedulerClient(&m_parts->connection, m_profile.commands(localState), context);
            connect(client, &remote::SchedulerClient::failed, context, [client, failed](const QString &error) {
                client->deleteLater();
                failed(error);
            });
            connect(client, &remote::SchedulerClient::polled, context,
                    [this, context, client, jobId, then, failed](const JobListResult &jobs) {
                        client->deleteLater();
                        const JobInfo *job = jobs.find(jobId);
                        if (!job)
                            return failed(tr("the scheduler does not know job %1").arg(jobId));
                        if (job->state != JobState::Running)
                            return failed(tr("job %1 is %2: it runs on no node").arg(jobId, jobStateName(job->state)));
                        const QString node = firstNode(m_profile.scheduler, job->nodes);
                        if (node.isEmpty())
                            return failed(tr("the scheduler names no node of job %1").arg(jobId));
                        const QStringList ask = nodeAddressCommand(m_profile.scheduler, node);
                        if (ask.isEmpty())
                            return then(node, node);
                        runCommand(
                            context, shellJoin(ask),
                            [node, then, failed](int exitCode, const QByteArray &out, const QByteArray &err) {
                                if (exitCode != 0)
                                    return failed(
                                        tr("no address for node %1: %2").arg(node, QString::fromUtf8(err.trimmed())));
                                const QString address = parseSlurmNodeAddress(out);
                                then(node, address.isEmpty() ? node : address);
                            },
                            failed, nodeQueryDeadlineMs);
                    });
            client->poll({jobId});
        },
        failed);
}

void ClusterSession::forwardTo(SessionOperation *operation, PortForward forward, int localPort)
{
    auto *forwarder = new PortForwarder(this, forward);
    if (const QString error = forwarder->listen(localPort); !error.isEmpty()) {
        delete forwarder;
        return operation->fail(error);
    }
    // The first connection says whether the node's port answers, so a refusal is said to the one who asked.
    forwarder->probe([this, asked = QPointer<SessionOperation>(operation),
                      forwarder = QPointer<PortForwarder>(forwarder)](const QString &error) {
        if (!forwarder)
            return asked ? asked->fail(tr("the forward was stopped")) : void();
        if (!asked || asked->isDone()) // the front that asked went away meanwhile: nobody wants it
            return forwarder->deleteLater();
        const PortForward &made = forwarder->forward();
        if (!error.isEmpty()) {
            forwarder->deleteLater();
            return asked->fail(tr("%1 port %2 (at %3) does not answer through %4: %5")
                                   .arg(made.node)
                                   .arg(made.remotePort)
                                   .arg(made.address, name(), error));
        }
        m_forwards.append(forwarder);
        connect(forwarder, &QObject::destroyed, this, [this, raw = forwarder.data()] { m_forwards.removeAll(raw); });
        // Nothing listens on the node once the run has ended: the forward goes with it.
        connect(this, &ClusterSession::runEnded, forwarder, [this, raw = forwarder.data()](const QString &runId) {
            if (runId == raw->forward().runId)
                stopForwards(raw->forward().localPort, runId);
        });
        asked->finishWith(agent::ForwardReply{made});
    });
}

QList<PortForward> ClusterSession::stopForwards(int localPort, const QString &runId)
{
    QList<PortForward> stopped;
    for (qsizetype i = m_forwards.size() - 1; i >= 0; --i) {
        const PortForward &forward = m_forwards.at(i)->forward();
        if ((localPort == 0 || forward.localPort == localPort) && (runId.isEmpty() || forward.runId == runId)) {
            stopped.prepend(forward);
            m_forwards.takeAt(i)->deleteLater();
        }
    }
    return stopped;
}

QList<PortForward> ClusterSession::forwards() const
{
    QList<PortForward> all;
    for (const PortForwarder *forwarder : m_forwards)
        all.append(forwarder->forward());
    return all;
}

} // namespace torchdeck
