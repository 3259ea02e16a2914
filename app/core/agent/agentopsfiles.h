#pragma once

#include "core/agent/agentopsbase.h"
#include "core/agent/portforward.h"

namespace torchdeck::agent {

// The protocol's operations on a cluster's files, ports, checks and questions (core/agent/agentops.h has the
// table).

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

// A run's files on the cluster (core/runs/runfiles.h): `path` relative to the run's directory, "" for all of it.
struct RunFileEntry {
    QString path;
    QString kind; // "f", "d", "l", "?"
    qint64 bytes = -1;
    qint64 timeMs = 0; // since the epoch
    QString linkTarget;
    qint64 attempt = -1;
    bool latest = false;
    bool best = false;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("path"), s.path, Need::Required, 4096);
        v.text(QStringLiteral("kind"), s.kind, Need::Optional, 1);
        v.integer(QStringLiteral("bytes"), s.bytes, -1, kCountLimit);
        v.integer(QStringLiteral("time_ms"), s.timeMs, 0, kCountLimit);
        v.text(QStringLiteral("link_target"), s.linkTarget, Need::Optional, 4096);
        v.integer(QStringLiteral("attempt"), s.attempt, -1, kCountLimit);
        v.flag(QStringLiteral("latest"), s.latest);
        v.flag(QStringLiteral("best"), s.best);
    }
};
struct RunFiles {
    static constexpr const char16_t *name = u"run_files";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        QString path;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.text(QStringLiteral("path"), s.path, Need::Optional, 4096);
        }
    };
    struct Reply {
        QString directory; // the run's, on the cluster
        QList<RunFileEntry> files;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("directory"), s.directory, Need::Optional, 4096);
            v.list(QStringLiteral("files"), s.files, 1 << 20);
        }
    };
};

// Files of a run copied to the laptop, each checked by size and SHA-256 before it takes its name; ProgressEvents
// (step: the file, done/total: its bytes) on the way. `checkpoint`: "latest", "best" or a step, beside or instead of
// `files`.
struct PulledFile {
    QString path;  // relative to the run's directory
    QString local; // where it is now
    qint64 bytes = 0;
    QString sha256;
    qint64 resumedAt = 0;      // bytes already there from an earlier try
    bool alreadyThere = false; // the same file was there: nothing copied
    QString keptAs;            // a different file was there: moved aside to this name (NAME.~N~), not lost
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("path"), s.path, Need::Required, 4096);
        v.text(QStringLiteral("local"), s.local, Need::Required, 4096);
        v.integer(QStringLiteral("bytes"), s.bytes, 0, kCountLimit);
        v.text(QStringLiteral("sha256"), s.sha256, Need::Optional, 64);
        v.integer(QStringLiteral("resumed_at"), s.resumedAt, 0, kCountLimit);
        v.flag(QStringLiteral("already_there"), s.alreadyThere);
        v.text(QStringLiteral("kept_as"), s.keptAs, Need::Optional, 4096);
    }
};
struct Pull {
    static constexpr const char16_t *name = u"pull";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        QStringList files;
        QString checkpoint;
        QString to; // a local directory, absolute
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.texts(QStringLiteral("files"), s.files, 10000);
            v.text(QStringLiteral("checkpoint"), s.checkpoint, Need::Optional, 4096);
            v.text(QStringLiteral("to"), s.to, Need::Required, 4096);
        }
    };
    struct Reply {
        QList<PulledFile> pulled;
        template <class S, class V> static void fields(S &s, V &v) { v.list(QStringLiteral("pulled"), s.pulled); }
    };
};

// A run's directory on a cluster it ran on before it went on elsewhere (ClusterSession::continueRun): removed with
// the run's own, before it.
struct RunDirectoryElsewhere {
    QString cluster;
    QString directory;
    qint64 bytes = -1; // -1: not asked, gone, or the cluster not reached (problem)
    bool removedDirectory = false;
    QString problem; // a dry run's: why that cluster could not be asked (a deletion fails instead)
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, kClusterName);
        v.text(QStringLiteral("directory"), s.directory, Need::Optional, 4096);
        v.integer(QStringLiteral("bytes"), s.bytes, -1, kCountLimit);
        v.flag(QStringLiteral("removed_directory"), s.removedDirectory);
        v.text(QStringLiteral("problem"), s.problem, Need::Optional, 4096);
    }
};
// Runs removed from the store, and with `remote` their directories on the cluster (and on each cluster an earlier
// attempt ran on); refused while a job of one goes on. `dryRun`: only what would go.
struct RunDeletion {
    QString run;
    QString name;
    QString directory;
    qint64 bytes = -1; // the directory's size; -1: not asked or gone
    bool removedDirectory = false;
    bool removedRecord = false;
    QList<RunDirectoryElsewhere> elsewhere;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("run"), s.run, Need::Required, kRunId);
        v.text(QStringLiteral("name"), s.name, Need::Optional, 4096);
        v.text(QStringLiteral("directory"), s.directory, Need::Optional, 4096);
        v.integer(QStringLiteral("bytes"), s.bytes, -1, kCountLimit);
        v.flag(QStringLiteral("removed_directory"), s.removedDirectory);
        v.flag(QStringLiteral("removed_record"), s.removedRecord);
        v.list(QStringLiteral("elsewhere"), s.elsewhere, 64);
    }
};
struct DeleteRuns {
    static constexpr const char16_t *name = u"delete_runs";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QStringList runs;
        bool remote = false;
        bool dryRun = false;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunsRequest::fields(s, v);
            v.flag(QStringLiteral("remote"), s.remote);
            v.flag(QStringLiteral("dry_run"), s.dryRun);
        }
    };
    struct Reply {
        QList<RunDeletion> runs;
        template <class S, class V> static void fields(S &s, V &v) { v.list(QStringLiteral("runs"), s.runs); }
    };
};

// One command in the run's running job, on one of its nodes (`node` empty: its first), with its output and exit code.
struct JobCommand {
    static constexpr const char16_t *name = u"job_command";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        QString node;
        QString command;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.text(QStringLiteral("node"), s.node, Need::Optional, 1024);
            v.text(QStringLiteral("command"), s.command, Need::Required, 65536);
        }
    };
    struct Reply {
        QString job;
        qint64 exitCode = 0;
        QByteArray out;
        QByteArray err;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("job"), s.job, Need::Optional, 256);
            v.integer(QStringLiteral("exit_code"), s.exitCode, -1, 255);
            v.bytes(QStringLiteral("out"), s.out);
            v.bytes(QStringLiteral("err"), s.err);
        }
    };
};

// An interactive shell in the run's running job on a pseudo-terminal of cols x rows: its output as DataEvents, the
// keys and window sizes as agent::TerminalInput, the reply when it ends (stop() ends it).
struct JobShell {
    static constexpr const char16_t *name = u"job_shell";
    static constexpr Scope scope = Scope::Cluster;
    struct Request {
        QString cluster;
        QString run;
        QString node;
        int cols = 80;
        int rows = 24;
        template <class S, class V> static void fields(S &s, V &v)
        {
            RunRequest::fields(s, v);
            v.text(QStringLiteral("node"), s.node, Need::Optional, 1024);
            v.integer(QStringLiteral("cols"), s.cols, 1, 10000);
            v.integer(QStringLiteral("rows"), s.rows, 1, 10000);
        }
    };
    struct Reply {
        QString job;
        qint64 exitCode = 0;
        template <class S, class V> static void fields(S &s, V &v)
        {
            v.text(QStringLiteral("job"), s.job, Need::Optional, 256);
            v.integer(QStringLiteral("exit_code"), s.exitCode, -1, 255);
        }
    };
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

} // namespace torchdeck::agent
