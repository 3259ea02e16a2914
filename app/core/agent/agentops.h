#pragma once

#include "core/agent/agentcodec.h"
#include "core/agent/agentopsbase.h"
#include "core/agent/agentopsfiles.h"
#include "core/agent/agentopsruns.h"
#include "core/agent/portforward.h"

#include <QStringList>
#include <tuple>

namespace torchdeck::agent {

// The agent's operations (docs/agent.md, "The protocol"): each declared once, with its name, its request and reply
// and their fields: the agent's own here, a cluster's runs in agentopsruns.h, its files, ports, checks and questions
// in agentopsfiles.h, and the table of them all below. The agent dispatches through the table
// (session/agentrequests.cpp); the fronts' calls (client/agentclient.h) send these requests and decode these
// replies; fuzz_agentprotocol decodes every one of them. An operation of Scope::Cluster names its cluster, and its
// request is refused before anything is made for a cluster the user never configured.

// --- The agent's own ---

struct Hello {
    static constexpr const char16_t *name = u"hello";
    static constexpr Scope scope = Scope::Agent;
    struct Request {
        QString front; // what `agent status` calls it: "window", "term"
        qint64 pid = 0;
        bool interactive = false; // it can ask a person (host keys, passwords)
        int pollMs = 0;           // how often it wants its clusters polled; 0: no wish
        QString version;          // the agent version it expects
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("front"), s.front, Need::Required, 64);
            v.integer(QStringLiteral("pid"), s.pid, 0, qint64(1) << 32);
            v.flag(QStringLiteral("interactive"), s.interactive);
            v.integer(QStringLiteral("poll_ms"), s.pollMs, 0, kMaxPollMs);
            v.text(QStringLiteral("version"), s.version, Need::Optional, 256);
        }
    };
    struct Reply {
        QString version;
        qint64 pid = 0;
        QStringList operations; // what this agent knows: a newer front learns before it asks
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("version"), s.version, Need::Required, 256);
            v.integer(QStringLiteral("pid"), s.pid, 0, qint64(1) << 32);
            v.texts(QStringLiteral("operations"), s.operations, 1000);
        }
    };
};

// What `torchdeck agent status` shows (core/agent/agentcodec.h).
struct Status {
    static constexpr const char16_t *name = u"status";
    static constexpr Scope scope = Scope::Agent;
    using Request = Empty;
    struct Reply {
        AgentStatus status;
        template <class S, class V> static void fields(S &s, V &v) { v.value(QStringLiteral("status"), s.status); }
    };
};

// The submissions in flight it finishes first.
struct StopReply {
    qint64 submissions = 0;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.integer(QStringLiteral("submissions"), s.submissions, 0, kCountLimit);
    }
};
struct Stop {
    static constexpr const char16_t *name = u"stop";
    static constexpr Scope scope = Scope::Agent;
    using Request = Empty;
    using Reply = StopReply;
};
// To a front of another version: finish what is in flight and exit; the front starts its own agent.
struct Handover {
    static constexpr const char16_t *name = u"handover";
    static constexpr Scope scope = Scope::Agent;
    using Request = Empty;
    using Reply = StopReply;
};

struct Poll {
    static constexpr const char16_t *name = u"poll";
    static constexpr Scope scope = Scope::Agent;
    struct Request {
        int ms = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("ms"), s.ms, 0, kMaxPollMs);
        }
    };
    using Reply = Empty;
};

struct ProfilesChanged {
    static constexpr const char16_t *name = u"profiles_changed";
    static constexpr Scope scope = Scope::Agent;
    using Request = Empty;
    using Reply = Empty;
};

struct ForwardsReply {
    QList<PortForward> forwards;
    template <class S, class V> static void fields(S &s, V &v) { v.list(QStringLiteral("forwards"), s.forwards); }
};
struct Forwards {
    static constexpr const char16_t *name = u"forwards";
    static constexpr Scope scope = Scope::Agent;
    using Request = Empty;
    using Reply = ForwardsReply;
};
// Stops the forwards of this local port (0: any) and run (empty: any); the reply lists those stopped.
struct ForwardStop {
    static constexpr const char16_t *name = u"forward_stop";
    static constexpr Scope scope = Scope::Agent;
    struct Request {
        int localPort = 0;
        QString run;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("local_port"), s.localPort, 0, 65535);
            v.text(QStringLiteral("run"), s.run, Need::Optional, kRunId);
        }
    };
    using Reply = ForwardsReply;
};

// Stops a request of this front that is in flight (its own reply ends it).
struct CancelRequest {
    static constexpr const char16_t *name = u"cancel_request";
    static constexpr Scope scope = Scope::Agent;
    struct Request {
        qint64 id = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("id"), s.id, 1, kCountLimit);
        }
    };
    using Reply = Empty;
};
// Keys typed into an interactive operation of this front's (a shell, agent::JobShell), and its window's size when it
// changed (cols and rows > 0).
struct TerminalInput {
    static constexpr const char16_t *name = u"terminal_input";
    static constexpr Scope scope = Scope::Agent;
    struct Request {
        qint64 id = 0;
        QByteArray bytes;
        int cols = 0;
        int rows = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("id"), s.id, 0, kCountLimit, Need::Required);
            v.bytes(QStringLiteral("bytes"), s.bytes);
            v.integer(QStringLiteral("cols"), s.cols, 0, 10000);
            v.integer(QStringLiteral("rows"), s.rows, 0, 10000);
        }
    };
    using Reply = Empty;
};

// --- A cluster's ---

struct Open {
    static constexpr const char16_t *name = u"open";
    static constexpr Scope scope = Scope::Cluster;
    using Request = ClusterRequest;
    using Reply = Empty;
};

// A pass over these runs (all the cluster's unfinished ones when empty), unless the last one, at most maxAgeMs
// old, covered them.
struct Refresh {
    static constexpr const char16_t *name = u"refresh";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QStringList runs;
        int maxAgeMs = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunsRequest::fields(s, v);
            v.integer(QStringLiteral("max_age_ms"), s.maxAgeMs, 0, kMaxPollMs);
        }
    };
    struct Reply {
        QString problem; // empty: the pass went well
        template <class S, class V> static void fields(S &s, V &v) { v.text(QStringLiteral("problem"), s.problem); }
    };
};

// What a submission sent: each run's job (an array's tasks, a sweep's points), the first as a single one's.

using Operations =
    std::tuple<Hello, Status, Stop, Handover, Poll, ProfilesChanged, Forwards, ForwardStop, CancelRequest,
               TerminalInput, Open, Refresh, EstimateStart, Submit, SubmitSweep, ResumeSweep, DeleteSweep, Resume,
               ContinueOn, Cancel, Requeue, AutoRestart, AnnotateRun, Checkpoints, DeleteCheckpoints, RunFiles, Pull,
               DeleteRuns, JobCommand, JobShell, ReadFile, FollowFile, Forward, Check, StackDump, Resources, Look,
               CodeSnapshots, PruneCode, WorkDirectory, AnswerHostKey, AnswerCredential>;

template <class Op, class = void> struct IsSubmission : std::false_type {
};
template <class Op>
struct IsSubmission<Op, std::void_t<decltype(Op::submission)>> : std::bool_constant<Op::submission> {
};

// Every operation's name, in the table's order.
QStringList operationNames();
// A submission's request: the job may be on its way when its front or agent goes.
bool isSubmission(const QString &operation);

} // namespace torchdeck::agent
