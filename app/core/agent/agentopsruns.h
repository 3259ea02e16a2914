#pragma once

#include "core/agent/agentopsbase.h"
#include "core/runs/sweepsubmission.h"

namespace torchdeck::agent {

// The protocol's operations on a cluster's runs (core/agent/agentops.h has the table): submissions, sweeps,
// resumes, cancel and requeue, the automatic restart, checkpoints.

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

// When the cluster's scheduler would start a job of this script, without submitting it (Slurm's sbatch
// --test-only): what `submit A,B` chooses by (core/runs/startestimate.h). No estimate (PBS): `start` 0.
struct EstimateStart {
    static constexpr const char16_t *name = u"estimate_start";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString script;
        template <class S, class V> static void fields(S &s, V &v)
        {
            ClusterRequest::fields(s, v);
            v.text(QStringLiteral("script"), s.script, Need::Required, 4 << 20);
        }
    };
    struct Reply {
        qint64 start = 0; // ms since the epoch, UTC
        bool skipped = false;
        QString said;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.integer(QStringLiteral("start"), s.start, 0, qint64(1) << 50);
            v.flag(QStringLiteral("skipped"), s.skipped);
            v.text(QStringLiteral("said"), s.said, Need::Optional, 4096);
        }
    };
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

// The next attempt of a run on another cluster (`resume RUN --on CLUSTER`): `cluster` is where it goes on. The
// checkpoint it starts from is pulled from the run's cluster through the agent and placed in its directory there,
// checked by size and SHA-256, before the job is sent (ClusterSession::continueRun).
struct ContinueOn {
    static constexpr const char16_t *name = u"continue_on";
    static constexpr Scope scope = Scope::Cluster;
    static constexpr bool submission = true;
    using Request = Resume::Request;
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

// What the user calls a run and wrote of it (name, note, tags), stored with the run; each given field changes.
struct AnnotateRun {
    static constexpr const char16_t *name = u"annotate_run";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        std::optional<QString> name;
        std::optional<QString> note;
        QStringList addTags;
        QStringList removeTags;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.optionalText(QStringLiteral("name"), s.name, 4096);
            v.optionalText(QStringLiteral("note"), s.note, 65536);
            v.texts(QStringLiteral("add_tags"), s.addTags, 1000);
            v.texts(QStringLiteral("remove_tags"), s.removeTags, 1000);
        }
    };
    struct Reply {
        QString name;
        QString note;
        QStringList tags;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("name"), s.name, Need::Optional, 4096);
            v.text(QStringLiteral("note"), s.note, Need::Optional, 65536);
            v.texts(QStringLiteral("tags"), s.tags, 1000);
        }
    };
};

} // namespace torchdeck::agent
