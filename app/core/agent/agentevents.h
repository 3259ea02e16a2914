#pragma once

#include "core/agent/agentfields.h"
#include "core/agent/agentprotocol.h"

#include <tuple>

namespace torchdeck::agent {

// The agent's events (docs/agent.md, "The protocol"), each declared once with its name and fields. News (id 0) go
// to every front; an operation's events (its request's id) report its progress and what it finds on the way.

// --- News ---

struct StateEvent { // a cluster's connection
    static constexpr const char16_t *name = u"state";
    QString cluster;
    ConnectionState state = ConnectionState::Disconnected;
    QString detail;
    bool needsYou = false; // a question waits for a front that can ask a person
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.value(QStringLiteral("state"), s.state);
        v.text(QStringLiteral("detail"), s.detail);
        v.flag(QStringLiteral("needs_you"), s.needsYou);
    }
};

struct WorkDirectoryEvent {
    static constexpr const char16_t *name = u"work_directory";
    QString cluster;
    QString directory;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.text(QStringLiteral("directory"), s.directory, Need::Required, 4096);
    }
};

struct RunEvent { // the run changed in the store: read it again
    static constexpr const char16_t *name = u"run";
    QString run;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("run"), s.run, Need::Required, 128);
    }
};

struct MetricsEvent { // the run's new events, stored from position `first` on: a front's cache applies each once
    static constexpr const char16_t *name = u"metrics";
    QString run;
    int attempt = 0;
    qint64 first = 0;
    QList<MetricEvent> events;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("run"), s.run, Need::Required, 128);
        v.integer(QStringLiteral("attempt"), s.attempt, 0, 1 << 20);
        v.integer(QStringLiteral("first"), s.first, 0, kCountLimit);
        v.value(QStringLiteral("events"), s.events);
    }
};

struct SeriesResetEvent { // read the run's series again
    static constexpr const char16_t *name = u"series_reset";
    QString run;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("run"), s.run, Need::Required, 128);
    }
};

struct NoticeEvent { // what the agent told its user of a run (core/runs/runnotice.h)
    static constexpr const char16_t *name = u"notice";
    QString cluster;
    QString run;
    QString event; // completed, failed, restarted, restart_failed, stalled, waiting
    QString title;
    QString body;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Optional, 1024);
        v.text(QStringLiteral("run"), s.run, Need::Required, 128);
        v.text(QStringLiteral("event"), s.event, Need::Required, 64);
        v.text(QStringLiteral("title"), s.title);
        v.text(QStringLiteral("body"), s.body);
    }
};

// With each of these, whether the cluster's session still has a restart in flight or due: a front waiting for a
// run's end waits for those too.
struct RefreshedEvent {
    static constexpr const char16_t *name = u"refreshed";
    QString cluster;
    QString problem;
    bool restartsPending = false;
    int nextPollMs = -1; // -1: none planned
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.text(QStringLiteral("problem"), s.problem);
        v.flag(QStringLiteral("restarts_pending"), s.restartsPending);
        v.integer(QStringLiteral("next_poll_ms"), s.nextPollMs, -1, 1 << 30);
    }
};

struct RestartedEvent {
    static constexpr const char16_t *name = u"restarted";
    QString cluster;
    QString run;
    QString job;
    QString reason;
    bool restartsPending = false;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.text(QStringLiteral("run"), s.run, Need::Required, 128);
        v.text(QStringLiteral("job"), s.job);
        v.text(QStringLiteral("reason"), s.reason);
        v.flag(QStringLiteral("restarts_pending"), s.restartsPending);
    }
};

struct RestartFailedEvent {
    static constexpr const char16_t *name = u"restart_failed";
    QString cluster;
    QString run;
    QString error;
    bool restartsPending = false;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.text(QStringLiteral("run"), s.run, Need::Required, 128);
        v.text(QStringLiteral("error"), s.error);
        v.flag(QStringLiteral("restarts_pending"), s.restartsPending);
    }
};

struct SubmittedEvent { // a job sent by any front or by the agent itself
    static constexpr const char16_t *name = u"submitted";
    LaunchResult result;
    template <class S, class V> static void fields(S &s, V &v) { v.value(QStringLiteral("result"), s.result); }
};

struct StoreFailedEvent {
    static constexpr const char16_t *name = u"store_failed";
    QString error;
    template <class S, class V> static void fields(S &s, V &v) { v.text(QStringLiteral("error"), s.error); }
};

// To the one front that is to ask a person.
struct HostKeyEvent {
    static constexpr const char16_t *name = u"host_key";
    QString cluster;
    HostKeyCheck key;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.value(QStringLiteral("key"), s.key);
    }
};
struct CredentialEvent {
    static constexpr const char16_t *name = u"credential";
    QString cluster;
    CredentialPrompt prompt;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("cluster"), s.cluster, Need::Required, 1024);
        v.value(QStringLiteral("prompt"), s.prompt);
    }
};

struct ClosingEvent { // the agent closes this front's connection, and why
    static constexpr const char16_t *name = u"closing";
    QString reason;
    bool busy = false; // refused for now (too many fronts connecting, no descriptor left): try again shortly
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("reason"), s.reason);
        v.flag(QStringLiteral("busy"), s.busy);
    }
};

// --- An operation's ---

struct ProgressEvent {
    static constexpr const char16_t *name = u"progress";
    QString step;
    qint64 done = -1;
    qint64 total = -1;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.text(QStringLiteral("step"), s.step);
        v.integer(QStringLiteral("done"), s.done, -1, kCountLimit);
        v.integer(QStringLiteral("total"), s.total, -1, kCountLimit);
    }
};

struct OutputEvent {
    static constexpr const char16_t *name = u"output";
    QString text;
    template <class S, class V> static void fields(S &s, V &v) { v.text(QStringLiteral("text"), s.text); }
};

struct RenderedEvent { // a submission's script, before it is sent
    static constexpr const char16_t *name = u"rendered";
    QString script;
    template <class S, class V> static void fields(S &s, V &v) { v.text(QStringLiteral("script"), s.script); }
};

struct JobEvent { // a submission's job, as each is sent
    static constexpr const char16_t *name = u"job";
    LaunchResult result;
    template <class S, class V> static void fields(S &s, V &v) { v.value(QStringLiteral("result"), s.result); }
};

struct JobErrorsEvent { // what the job's own check refused, each with its JobSpec key: a front names its own field
    static constexpr const char16_t *name = u"job_errors";
    QList<JobSpecError> errors;
    template <class S, class V> static void fields(S &s, V &v) { v.list(QStringLiteral("errors"), s.errors, 1000); }
};

struct ItemEvent { // a check's line
    static constexpr const char16_t *name = u"item";
    CheckItem item;
    template <class S, class V> static void fields(S &s, V &v) { v.value(QStringLiteral("item"), s.item); }
};

struct DataEvent { // a file's bytes (read_file, follow_file), from offset
    static constexpr const char16_t *name = u"data";
    qint64 offset = 0;
    QByteArray bytes;
    template <class S, class V> static void fields(S &s, V &v)
    {
        v.integer(QStringLiteral("offset"), s.offset, 0, kCountLimit);
        v.bytes(QStringLiteral("bytes"), s.bytes);
    }
};

struct ResetEvent { // the followed file was truncated or replaced: it is read again from its start
    static constexpr const char16_t *name = u"reset";
    QString reason;
    template <class S, class V> static void fields(S &s, V &v) { v.text(QStringLiteral("reason"), s.reason); }
};

// An event as a message: news (id 0), or an operation's (its request's id).
template <class E> AgentMessage eventMessage(const E &event, qint64 id = 0)
{
    return agentEvent(QString::fromUtf16(E::name), encodeFields(event), id);
}
// Whether a message's name is this event's.
template <class E> bool isEvent(const QString &name)
{
    return name == QString::fromUtf16(E::name);
}

using Events = std::tuple<StateEvent, WorkDirectoryEvent, RunEvent, MetricsEvent, SeriesResetEvent, NoticeEvent,
                          RefreshedEvent, RestartedEvent, RestartFailedEvent, SubmittedEvent, StoreFailedEvent,
                          HostKeyEvent, CredentialEvent, ClosingEvent, ProgressEvent, OutputEvent, RenderedEvent,
                          JobEvent, JobErrorsEvent, ItemEvent, DataEvent, ResetEvent>;

} // namespace torchdeck::agent
