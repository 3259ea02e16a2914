#pragma once

#include "core/agent/agentops.h"
#include "core/agent/agentprotocol.h"

namespace torchdeck {

class Agent;
class AgentPeer;
class ClusterSession;
class SessionOperation;

// One request of a front, answered by the agent: dispatched through the protocol's table (core/agent/agentops.h)
// to the operation's handler below, its request decoded and checked first, and for a cluster's operation the
// cluster checked before its session (and connection thread) is made. A bad argument is an error reply, never a
// crash.
class AgentRequests {
public:
    AgentRequests(Agent *agent, AgentPeer *peer)
        : m_agent(agent)
        , m_peer(peer)
    {
    }
    void handle(const AgentMessage &request);
    template <class Op> void dispatch(const QCborMap &args);

private:
    template <class Reply> void reply(const Reply &result);
    void error(const QString &message);
    void track(SessionOperation *operation, bool submission = false);

    void on(agent::Hello, const agent::Hello::Request &hello);
    void on(agent::Status, const agent::Empty &);
    void on(agent::Stop, const agent::Empty &);
    void on(agent::Handover, const agent::Empty &);
    void on(agent::Poll, const agent::Poll::Request &poll);
    void on(agent::ProfilesChanged, const agent::Empty &);
    void on(agent::Forwards, const agent::Empty &);
    void on(agent::ForwardStop, const agent::ForwardStop::Request &request);
    void on(agent::CancelRequest, const agent::CancelRequest::Request &request);
    void on(agent::TerminalInput, const agent::TerminalInput::Request &request);
    void on(agent::Open, const agent::ClusterRequest &, ClusterSession *session);
    void on(agent::Refresh, const agent::Refresh::Request &request, ClusterSession *session);
    void on(agent::EstimateStart, const agent::EstimateStart::Request &request, ClusterSession *session);
    void on(agent::Submit, const agent::Submit::Request &request, ClusterSession *session);
    void on(agent::SubmitSweep, const agent::SubmitSweep::Request &request, ClusterSession *session);
    void on(agent::ResumeSweep, const agent::ResumeSweep::Request &request, ClusterSession *session);
    void on(agent::DeleteSweep, const agent::DeleteSweep::Request &request, ClusterSession *session);
    void on(agent::Resume, const agent::Resume::Request &request, ClusterSession *session);
    void on(agent::ContinueOn, const agent::Resume::Request &request, ClusterSession *session);
    void on(agent::Cancel, const agent::RunsRequest &request, ClusterSession *session);
    void on(agent::Requeue, const agent::RunRequest &request, ClusterSession *session);
    void on(agent::AutoRestart, const agent::AutoRestart::Request &request, ClusterSession *session);
    void on(agent::AnnotateRun, const agent::AnnotateRun::Request &request, ClusterSession *session);
    void on(agent::Checkpoints, const agent::RunRequest &request, ClusterSession *session);
    void on(agent::DeleteCheckpoints, const agent::DeleteCheckpoints::Request &request, ClusterSession *session);
    void on(agent::RunFiles, const agent::RunFiles::Request &request, ClusterSession *session);
    void on(agent::Pull, const agent::Pull::Request &request, ClusterSession *session);
    void on(agent::DeleteRuns, const agent::DeleteRuns::Request &request, ClusterSession *session);
    void on(agent::JobCommand, const agent::JobCommand::Request &request, ClusterSession *session);
    void on(agent::JobShell, const agent::JobShell::Request &request, ClusterSession *session);
    void on(agent::ReadFile, const agent::ReadFile::Request &request, ClusterSession *session);
    void on(agent::FollowFile, const agent::FollowFile::Request &request, ClusterSession *session);
    void on(agent::Forward, const agent::Forward::Request &request, ClusterSession *session);
    void on(agent::Check, const agent::Check::Request &request, ClusterSession *session);
    void on(agent::StackDump, const agent::RunRequest &request, ClusterSession *session);
    void on(agent::Resources, const agent::RunsRequest &request, ClusterSession *session);
    void on(agent::Look, const agent::RunsRequest &request, ClusterSession *session);
    void on(agent::CodeSnapshots, const agent::ClusterRequest &, ClusterSession *session);
    void on(agent::PruneCode, const agent::ClusterRequest &, ClusterSession *session);
    void on(agent::WorkDirectory, const agent::ClusterRequest &, ClusterSession *session);
    void on(agent::AnswerHostKey, const agent::AnswerHostKey::Request &request, ClusterSession *session);
    void on(agent::AnswerCredential, const agent::AnswerCredential::Request &request, ClusterSession *session);

    Agent *m_agent;
    AgentPeer *m_peer;
    qint64 m_id = 0;
};

} // namespace torchdeck
