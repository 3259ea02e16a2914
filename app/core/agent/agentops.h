#pragma once

#include "core/agent/agentcodec.h"
#include "core/agent/agentfields.h"
#include "core/agent/portforward.h"
#include "core/runs/sweepsubmission.h"

#include <QStringList>
#include <tuple>

namespace torchdeck::agent {

// The agent's operations (docs/agent.md, "The protocol"): each declared once, here, with its name, its request
// and reply and their fields. The agent dispatches through this table (session/agentrequests.cpp); the fronts'
// calls (session/agentclient.h) send these requests and decode these replies; fuzz_agentprotocol decodes every
// one of them. An operation of Scope::Cluster names its cluster, and its request is refused before anything is made
// for a cluster the user never configured.

enum class Scope { Agent, Cluster };

struct Empty {
    template <class S, class V> static void fields(S &, V &) {}
};

inline constexpr qint64 kMaxPollMs = 24 * 3600 * 1000;
inline constexpr qsizetype kClusterName = 1024;
inline constexpr qsizetype kRunId = 128;

struct ClusterRequest {
    QString cluster;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, kClusterName);
    }
};
struct RunRequest {
    QString cluster;
    QString run;
    template <class S, class V> static void fields(S &s, V &v)
    {
        ClusterRequest::fields(s, v);
        v.text(QStringLiteral("run"), s.run, Need::Required, kRunId);
    }
};
struct RunsRequest {
    QString cluster;
    QStringList runs;
    template <class S, class V> static void fields(S &s, V &v)
    {
        ClusterRequest::fields(s, v);
        v.texts(QStringLiteral("runs"), s.runs, 10000);
    }
};

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
struct SubmitReply {
    LaunchResult first;
    QList<LaunchResult> jobs;
    QString sweep; // a sweep's id
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.value(QStringLiteral("first"), s.first, Need::Optional);
        v.list(QStringLiteral("jobs"), s.jobs);
        v.text(QStringLiteral("sweep"), s.sweep, Need::Optional, kRunId);
    }
};
struct Submit {
    static constexpr const char16_t *name = u"submit";
    static constexpr Scope scope = Scope::Cluster;
    static constexpr bool submission = true;
    struct Request {
        QString cluster;
        LaunchRequest request; // with its profile: a front may submit with one it has not saved
        int chain = 1;         // attempts submitted up front, each waiting on the one before
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.value(QStringLiteral("request"), s.request);
            v.integer(QStringLiteral("chain"), s.chain, 1, 1000);
        }
    };
    using Reply = SubmitReply;
};

struct SweepPointMessage {
    QString point; // its values as JSON
    LaunchRequest request;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("point"), s.point);
        v.value(QStringLiteral("request"), s.request);
    }
};
struct SubmitSweep {
    static constexpr const char16_t *name = u"submit_sweep";
    static constexpr Scope scope = Scope::Cluster;
    static constexpr bool submission = true;
    struct Request {
        QString cluster;
        QString id; // the sweep's
        QString sweepName;
        QString axesJson;
        QList<SweepPointMessage> points;
        bool asArray = false;
        int maxRunning = 0; // an array's tasks at once; 0: no limit
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.text(QStringLiteral("id"), s.id, Need::Required, kRunId);
            v.text(QStringLiteral("name"), s.sweepName, Need::Optional, 256);
            v.text(QStringLiteral("axes_json"), s.axesJson, Need::Required);
            v.list(QStringLiteral("points"), s.points);
            v.flag(QStringLiteral("array"), s.asArray);
            v.integer(QStringLiteral("max_running"), s.maxRunning, 0, 100000);
        }
    };
    using Reply = SubmitReply;
};

// Every run of the sweep that ended short of completing goes on as a new job of its run, from its latest
// checkpoint: chosen by the agent after a pass over the sweep's runs (core's sweepRunsToResume), sent one by one.
struct ResumeSweep {
    static constexpr const char16_t *name = u"resume_sweep";
    static constexpr Scope scope = Scope::Cluster;
    static constexpr bool submission = true;
    struct Request {
        QString cluster;
        QString sweep;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.text(QStringLiteral("sweep"), s.sweep, Need::Required, kRunId);
        }
    };
    struct Reply {
        QList<LaunchResult> resumed; // empty: nothing to resume
        QStringList problems;        // runs that could not go on, and why
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.list(QStringLiteral("resumed"), s.resumed);
            v.texts(QStringLiteral("problems"), s.problems);
        }
    };
};

// The sweep and its runs leave the store, refused while one of its runs goes on (after a pass over them, unless
// refresh is off): the agent decides, as the only writer of the store.
struct DeleteSweep {
    static constexpr const char16_t *name = u"delete_sweep";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString sweep;
        bool refresh = true;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.text(QStringLiteral("sweep"), s.sweep, Need::Required, kRunId);
            v.flag(QStringLiteral("refresh"), s.refresh);
        }
    };
    struct Reply {
        qint64 runs = 0; // deleted with it
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("runs"), s.runs, 0, kCountLimit);
        }
    };
};

struct Resume {
    static constexpr const char16_t *name = u"resume";
    static constexpr Scope scope = Scope::Cluster;
    static constexpr bool submission = true;
    struct Request {
        QString cluster;
        QString run;
        QString from;   // ResumeFrom's text
        QString epochs; // the new total, as the user wrote it; empty: as before
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.text(QStringLiteral("from"), s.from);
            v.text(QStringLiteral("epochs"), s.epochs, Need::Optional, 32);
        }
    };
    using Reply = SubmitReply;
};

// What cancel and requeue did, and to which jobs.
struct RunActionReply {
    QString message;
    QStringList jobs;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("message"), s.message);
        v.texts(QStringLiteral("jobs"), s.jobs);
    }
};
struct Cancel {
    static constexpr const char16_t *name = u"cancel";
    static constexpr Scope scope = Scope::Cluster;
    using Request = RunsRequest;
    using Reply = RunActionReply;
};
struct Requeue {
    static constexpr const char16_t *name = u"requeue";
    static constexpr Scope scope = Scope::Cluster;
    using Request = RunRequest;
    using Reply = RunActionReply;
};

// Switches a run's automatic restart; with a restart in flight, answers once it is sent (its job) or failed.
struct AutoRestart {
    static constexpr const char16_t *name = u"auto_restart";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        bool enabled = true;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.flag(QStringLiteral("enabled"), s.enabled);
        }
    };
    struct Reply {
        QString job;
        QString error;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("job"), s.job);
            v.text(QStringLiteral("error"), s.error);
        }
    };
};

struct Checkpoints {
    static constexpr const char16_t *name = u"checkpoints";
    static constexpr Scope scope = Scope::Cluster;
    using Request = RunRequest;
    struct Reply {
        QStringList present; // the checkpoint files on the cluster
        template <class S, class V> static void fields(S &s, V &v) { v.texts(QStringLiteral("present"), s.present); }
    };
};
struct DeleteCheckpoints {
    static constexpr const char16_t *name = u"delete_checkpoints";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        QStringList names;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.texts(QStringLiteral("names"), s.names, 10000);
        }
    };
    struct Reply {
        QStringList deleted;
        QStringList gone;       // already gone from the cluster
        QStringList unrecorded; // the store's failures to forget them
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.texts(QStringLiteral("deleted"), s.deleted);
            v.texts(QStringLiteral("gone"), s.gone);
            v.texts(QStringLiteral("unrecorded"), s.unrecorded);
        }
    };
};

// The file's bytes as DataEvents: its last lines (-1: all of it).
struct ReadFile {
    static constexpr const char16_t *name = u"read_file";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString path;
        int lines = -1;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.text(QStringLiteral("path"), s.path, Need::Required, 4096);
            v.integer(QStringLiteral("lines"), s.lines, -1, 1 << 24);
        }
    };
    using Reply = Empty;
};
// From offset, or (lastBytes > 0) that many bytes before the end, as DataEvents until stopped; ResetEvent when the
// file was truncated or replaced (it is read again from its start).
struct FollowFile {
    static constexpr const char16_t *name = u"follow_file";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString path;
        qint64 offset = 0;
        qint64 lastBytes = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.text(QStringLiteral("path"), s.path, Need::Required, 4096);
            v.integer(QStringLiteral("offset"), s.offset, 0, kCountLimit);
            v.integer(QStringLiteral("last_bytes"), s.lastBytes, 0, qint64(1) << 30);
        }
    };
    using Reply = Empty;
};

struct ForwardReply {
    PortForward forward;
    template <class S, class V> static void fields(S &s, V &v) { v.value(QStringLiteral("forward"), s.forward); }
};
// localhost:localPort (0: a free one) to port on the run's node, until stopped, however long the front lives.
struct Forward {
    static constexpr const char16_t *name = u"forward";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        int port = 0;
        int localPort = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.integer(QStringLiteral("port"), s.port, 1, 65535, Need::Required);
            v.integer(QStringLiteral("local_port"), s.localPort, 0, 65535);
        }
    };
    using Reply = ForwardReply;
};

// Each line as an ItemEvent, then all of them.
struct Check {
    static constexpr const char16_t *name = u"check";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        ClusterCheckSettings settings;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.value(QStringLiteral("settings"), s.settings);
        }
    };
    struct Reply {
        QList<CheckItem> items;
        template <class S, class V> static void fields(S &s, V &v) { v.list(QStringLiteral("items"), s.items); }
    };
};

struct StackDump {
    static constexpr const char16_t *name = u"stack_dump";
    static constexpr Scope scope = Scope::Cluster;
    using Request = RunRequest;
    struct Reply {
        QString dump;
        QString path; // where the agent kept it; empty: not kept
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("dump"), s.dump, Need::Optional, qsizetype(64) << 20);
            v.text(QStringLiteral("path"), s.path, Need::Optional, 4096);
        }
    };
};

// A sample of what the runs' running jobs use now, stored with the runs.
struct Resources {
    static constexpr const char16_t *name = u"resources";
    static constexpr Scope scope = Scope::Cluster;
    using Request = RunsRequest;
    struct Reply {
        QStringList sampled;
        QStringList problems;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.texts(QStringLiteral("sampled"), s.sampled);
            v.texts(QStringLiteral("problems"), s.problems);
        }
    };
};

// The runs this front shows (none: an empty list): their resources are sampled while some front shows them.
struct Look {
    static constexpr const char16_t *name = u"look";
    static constexpr Scope scope = Scope::Cluster;
    using Request = RunsRequest;
    using Reply = Empty;
};

struct CodeSnapshot {
    QString id;
    qint64 files = 0;
    qint64 bytes = 0;
    qint64 time = 0; // Unix seconds
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("id"), s.id, Need::Required, 256);
        v.integer(QStringLiteral("files"), s.files, 0, kCountLimit);
        v.integer(QStringLiteral("bytes"), s.bytes, 0, kCountLimit);
        v.integer(QStringLiteral("time"), s.time, 0, kCountLimit);
    }
};
struct CodeSnapshots {
    static constexpr const char16_t *name = u"code_snapshots";
    static constexpr Scope scope = Scope::Cluster;
    using Request = ClusterRequest;
    struct Reply {
        QList<CodeSnapshot> snapshots;
        template <class S, class V> static void fields(S &s, V &v) { v.list(QStringLiteral("snapshots"), s.snapshots); }
    };
};
struct PruneCode {
    static constexpr const char16_t *name = u"prune_code";
    static constexpr Scope scope = Scope::Cluster;
    using Request = ClusterRequest;
    struct Reply {
        qint64 kept = 0;
        QStringList deleted;
        qint64 objects = 0;
        qint64 bytes = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("kept"), s.kept, 0, kCountLimit);
            v.texts(QStringLiteral("deleted"), s.deleted);
            v.integer(QStringLiteral("objects"), s.objects, 0, kCountLimit);
            v.integer(QStringLiteral("bytes"), s.bytes, 0, kCountLimit);
        }
    };
};

struct WorkDirectory {
    static constexpr const char16_t *name = u"work_directory";
    static constexpr Scope scope = Scope::Cluster;
    using Request = ClusterRequest;
    struct Reply {
        QString directory; // absolute, symlinks resolved
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("directory"), s.directory, Need::Optional, 4096);
        }
    };
};

struct AnswerHostKey {
    static constexpr const char16_t *name = u"answer_host_key";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        bool trust = false;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.flag(QStringLiteral("trust"), s.trust);
        }
    };
    using Reply = Empty;
};
struct AnswerCredential {
    static constexpr const char16_t *name = u"answer_credential";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        std::optional<QString> answer; // none: cancelled
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.optionalText(QStringLiteral("answer"), s.answer, 65536);
        }
    };
    using Reply = Empty;
};

// The table.
using Operations =
    std::tuple<Hello, Status, Stop, Handover, Poll, ProfilesChanged, Forwards, ForwardStop, CancelRequest, Open,
               Refresh, Submit, SubmitSweep, ResumeSweep, DeleteSweep, Resume, Cancel, Requeue, AutoRestart,
               Checkpoints, DeleteCheckpoints, ReadFile, FollowFile, Forward, Check, StackDump, Resources, Look,
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
