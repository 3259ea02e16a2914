#include "session/agentrequests.h"

#include "client/sessionoperation.h"
#include "core/agent/agentcodec.h"
#include "core/agent/agentevents.h"
#include "core/agent/portforward.h"
#include "session/agent.h"
#include "session/agentpeer.h"
#include "session/clustersession.h"
#include "session/clustersessions.h"
#include "session/questionrouter.h"

#include <QCoreApplication>
#include <QHash>

namespace torchdeck {

namespace {
using Handler = void (*)(AgentRequests &, const QCborMap &);

template <class Op> void dispatchTo(AgentRequests &requests, const QCborMap &args)
{
    requests.dispatch<Op>(args);
}

// Name -> handler, made once from the protocol's table: no operation can be declared and not handled.
const QHash<QString, Handler> &handlers()
{
    static const QHash<QString, Handler> table = std::apply(
        [](auto... op) {
            return QHash<QString, Handler>{{QString::fromUtf16(decltype(op)::name), &dispatchTo<decltype(op)>}...};
        },
        agent::Operations{});
    return table;
}
} // namespace

void AgentRequests::handle(const AgentMessage &request)
{
    m_id = request.id;
    // A front of another version cannot say hello in this one's words, but may ask it to hand over.
    if (!m_peer->greeted && request.op != QString::fromUtf16(agent::Hello::name) &&
        request.op != QString::fromUtf16(agent::Handover::name))
        return error(QCoreApplication::translate("torchdeck::AgentRequests", "say hello first"));
    const Handler handler = handlers().value(request.op);
    if (!handler) // nothing is made for an operation this agent does not know
        return error(QCoreApplication::translate("torchdeck::AgentRequests", "unknown request '%1'").arg(request.op));
    handler(*this, request.args);
}

template <class Op> void AgentRequests::dispatch(const QCborMap &args)
{
    QString problem;
    const std::optional<typename Op::Request> request = agent::decodeFields<typename Op::Request>(args, &problem);
    if (!request)
        return error(problem);
    if constexpr (Op::scope == agent::Scope::Cluster) {
        // Checked before a session (and its thread) is made for the cluster.
        if (problem = m_agent->unknownClusterProblem(request->cluster); !problem.isEmpty())
            return error(problem);
        ClusterSession *session = m_agent->sessionFor(request->cluster);
        m_agent->m_questions->noteAsker(request->cluster, m_peer);
        on(Op{}, *request, session);
    } else {
        on(Op{}, *request);
    }
}

template <class Reply> void AgentRequests::reply(const Reply &result)
{
    m_peer->send(agentReply(m_id, agent::encodeFields(result)));
}

void AgentRequests::error(const QString &message)
{
    m_peer->send(agentErrorReply(m_id, message));
}

void AgentRequests::track(SessionOperation *operation, bool submission)
{
    m_agent->track(m_peer, m_id, operation, submission);
}

void AgentRequests::on(agent::Hello, const agent::Hello::Request &hello)
{
    m_peer->front = hello.front;
    m_peer->pid = hello.pid;
    m_peer->interactive = hello.interactive;
    m_peer->pollMs = hello.pollMs;
    m_peer->greeted = true;
    m_agent->applyPollIntervals();
    reply(agent::Hello::Reply{m_agent->version(), QCoreApplication::applicationPid(), agent::operationNames()});
    // A front that can ask a person: the clusters that waited for one try again, and their questions come here.
    if (m_peer->interactive) {
        for (const QString &cluster : m_agent->m_questions->clustersNeedingYou()) {
            m_agent->m_questions->clearNeedsYou(cluster);
            m_agent->sessionFor(cluster)->open();
        }
    }
    // What the agent's sessions hold now, so the front starts from the same picture.
    for (ClusterSession *session : m_agent->sessions()->all()) {
        m_peer->send(agent::eventMessage(agent::StateEvent{session->name(), session->state(), session->stateDetail(),
                                                           m_agent->m_questions->needsYou(session->name())}));
        if (!session->workDirectory().isEmpty())
            m_peer->send(agent::eventMessage(agent::WorkDirectoryEvent{session->name(), session->workDirectory()}));
    }
}

void AgentRequests::on(agent::Status, const agent::Empty &)
{
    reply(agent::Status::Reply{m_agent->status()});
}

void AgentRequests::on(agent::Stop, const agent::Empty &)
{
    reply(agent::StopReply{m_agent->m_submissionsInFlight});
    m_agent->stop(QStringLiteral("asked to stop by %1 %2").arg(m_peer->front).arg(m_peer->pid));
}

void AgentRequests::on(agent::Handover, const agent::Empty &)
{
    reply(agent::StopReply{m_agent->m_submissionsInFlight});
    m_agent->stop(QStringLiteral("handing over to the %1 of another version").arg(m_peer->front));
}

void AgentRequests::on(agent::Poll, const agent::Poll::Request &poll)
{
    m_peer->pollMs = poll.ms;
    m_agent->applyPollIntervals();
    reply(agent::Empty{});
}

void AgentRequests::on(agent::ProfilesChanged, const agent::Empty &)
{
    reply(agent::Empty{}); // read again before every request already
}

void AgentRequests::on(agent::Forwards, const agent::Empty &)
{
    agent::ForwardsReply listed;
    for (ClusterSession *session : m_agent->sessions()->all())
        listed.forwards += session->forwards();
    reply(listed);
}

void AgentRequests::on(agent::ForwardStop, const agent::ForwardStop::Request &request)
{
    agent::ForwardsReply stopped;
    for (ClusterSession *session : m_agent->sessions()->all())
        stopped.forwards += session->stopForwards(request.localPort, request.run);
    reply(stopped);
}

void AgentRequests::on(agent::CancelRequest, const agent::CancelRequest::Request &request)
{
    if (const QPointer<SessionOperation> operation = m_peer->operations.value(request.id))
        operation->stop();
    reply(agent::Empty{});
}

void AgentRequests::on(agent::TerminalInput, const agent::TerminalInput::Request &request)
{
    if (const QPointer<SessionOperation> operation = m_peer->operations.value(request.id))
        operation->input(request.bytes, request.cols, request.rows);
    reply(agent::Empty{});
}

void AgentRequests::on(agent::Open, const agent::ClusterRequest &, ClusterSession *session)
{
    track(session->connectOperation());
}

void AgentRequests::on(agent::Refresh, const agent::Refresh::Request &request, ClusterSession *session)
{
    track(session->refreshOperation(request.runs, request.maxAgeMs));
}

void AgentRequests::on(agent::EstimateStart, const agent::EstimateStart::Request &request, ClusterSession *session)
{
    track(session->estimateStart(request.script));
}

void AgentRequests::on(agent::Submit, const agent::Submit::Request &request, ClusterSession *session)
{
    track(session->submit(request.request, request.chain), true);
}

void AgentRequests::on(agent::SubmitSweep, const agent::SubmitSweep::Request &request, ClusterSession *session)
{
    QList<SweepPointRequest> points;
    for (const agent::SweepPointMessage &point : request.points)
        points.append({point.point, point.request});
    const SweepRecord record{request.id, session->name(), request.sweepName, QDateTime::currentDateTimeUtc(),
                             request.axesJson};
    track(session->submitSweep(record, points, request.asArray, request.maxRunning), true);
}

void AgentRequests::on(agent::ResumeSweep, const agent::ResumeSweep::Request &request, ClusterSession *session)
{
    track(session->resumeSweep(request.sweep), true);
}

void AgentRequests::on(agent::DeleteSweep, const agent::DeleteSweep::Request &request, ClusterSession *session)
{
    track(session->deleteSweep(request.sweep, request.refresh));
}

void AgentRequests::on(agent::Resume, const agent::Resume::Request &request, ClusterSession *session)
{
    track(session->resume(request.run, ResumeFrom::fromText(request.from), request.epochs), true);
}

void AgentRequests::on(agent::ContinueOn, const agent::Resume::Request &request, ClusterSession *session)
{
    Agent *agent = m_agent;
    const auto sessionOf = [agent](const QString &cluster) {
        return agent->unknownClusterProblem(cluster).isEmpty() ? agent->sessionFor(cluster) : nullptr;
    };
    track(session->continueRun(request.run, ResumeFrom::fromText(request.from), request.epochs, sessionOf), true);
}

void AgentRequests::on(agent::Cancel, const agent::RunsRequest &request, ClusterSession *session)
{
    track(session->cancel(request.runs));
}

void AgentRequests::on(agent::Requeue, const agent::RunRequest &request, ClusterSession *session)
{
    track(session->requeue(request.run));
}

void AgentRequests::on(agent::AutoRestart, const agent::AutoRestart::Request &request, ClusterSession *session)
{
    track(session->autoRestartOperation(request.run, request.enabled));
}

void AgentRequests::on(agent::AnnotateRun, const agent::AnnotateRun::Request &request, ClusterSession *session)
{
    track(session->annotateRun(request.run, request.name, request.note, request.addTags, request.removeTags));
}

void AgentRequests::on(agent::Checkpoints, const agent::RunRequest &request, ClusterSession *session)
{
    track(session->presentCheckpoints(request.run));
}

void AgentRequests::on(agent::DeleteCheckpoints, const agent::DeleteCheckpoints::Request &request,
                       ClusterSession *session)
{
    track(session->deleteCheckpoints(request.run, request.names));
}

void AgentRequests::on(agent::RunFiles, const agent::RunFiles::Request &request, ClusterSession *session)
{
    track(session->listRunFiles(request.run, request.path));
}

void AgentRequests::on(agent::Pull, const agent::Pull::Request &request, ClusterSession *session)
{
    track(session->pullRunFiles(request.run, request.files, request.checkpoint, request.to));
}

void AgentRequests::on(agent::DeleteRuns, const agent::DeleteRuns::Request &request, ClusterSession *session)
{
    Agent *agent = m_agent;
    const auto sessionOf = [agent](const QString &cluster) {
        return agent->unknownClusterProblem(cluster).isEmpty() ? agent->sessionFor(cluster) : nullptr;
    };
    track(session->deleteRuns(request.runs, request.remote, request.dryRun, sessionOf));
}

void AgentRequests::on(agent::JobCommand, const agent::JobCommand::Request &request, ClusterSession *session)
{
    track(session->jobCommand(request.run, request.node, request.command));
}

void AgentRequests::on(agent::JobShell, const agent::JobShell::Request &request, ClusterSession *session)
{
    track(session->jobShell(request.run, request.node, request.cols, request.rows));
}

void AgentRequests::on(agent::ReadFile, const agent::ReadFile::Request &request, ClusterSession *session)
{
    track(session->readFile(request.path, request.lines));
}

void AgentRequests::on(agent::FollowFile, const agent::FollowFile::Request &request, ClusterSession *session)
{
    track(session->followFile(request.path, request.offset, request.lastBytes));
}

void AgentRequests::on(agent::Forward, const agent::Forward::Request &request, ClusterSession *session)
{
    track(session->startForward(request.run, request.port, request.localPort));
}

void AgentRequests::on(agent::Check, const agent::Check::Request &request, ClusterSession *session)
{
    track(session->check(request.settings));
}

void AgentRequests::on(agent::StackDump, const agent::RunRequest &request, ClusterSession *session)
{
    track(session->stackDump(request.run));
}

void AgentRequests::on(agent::Resources, const agent::RunsRequest &request, ClusterSession *session)
{
    track(session->sampleResources(request.runs));
}

void AgentRequests::on(agent::Look, const agent::RunsRequest &request, ClusterSession *session)
{
    m_peer->looking.insert(session->name(), request.runs);
    m_agent->applyLooking();
    reply(agent::Empty{});
}

void AgentRequests::on(agent::CodeSnapshots, const agent::ClusterRequest &, ClusterSession *session)
{
    track(session->codeSnapshots());
}

void AgentRequests::on(agent::PruneCode, const agent::ClusterRequest &, ClusterSession *session)
{
    track(session->pruneCodeSnapshots());
}

void AgentRequests::on(agent::WorkDirectory, const agent::ClusterRequest &, ClusterSession *session)
{
    track(session->workDirectoryOperation());
}

void AgentRequests::on(agent::AnswerHostKey, const agent::AnswerHostKey::Request &request, ClusterSession *session)
{
    m_agent->m_questions->answerHostKey(m_peer, session, request.trust);
    reply(agent::Empty{});
}

void AgentRequests::on(agent::AnswerCredential, const agent::AnswerCredential::Request &request,
                       ClusterSession *session)
{
    m_agent->m_questions->answerCredential(m_peer, session, request.answer);
    reply(agent::Empty{});
}

} // namespace torchdeck
