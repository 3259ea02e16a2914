#pragma once

#include "core/agent/agentfields.h"

#include <QCborMap>
#include <QCborValue>
#include <QObject>
#include <functional>

namespace torchdeck {

// One long operation of a cluster session, in the vocabulary every long operation shares: started,
// progress, output, event (what an operation reports of its own: a script rendered, a job submitted, a check's
// line, log bytes), and exactly one of finished or failed; stop() asks it to end early. Results and events are
// CBOR (the protocol's types: core/agent/agentops.h, agentevents.h), because an operation runs in the agent and a front
// sees it through the socket: the agent's session and the front's handle are both SessionOperations. Nothing is emitted
// before the event loop runs again, so a caller connects after the call that made it. Deletes itself after finished or
// failed.
class SessionOperation : public QObject {
    Q_OBJECT
public:
    explicit SessionOperation(QObject *parent = nullptr);

    void stop();
    bool isDone() const { return m_done; }

    // For the one that runs it.
    void reportProgress(const QString &step, qint64 done, qint64 total);
    void reportOutput(const QString &text);
    void reportEvent(const QString &name, const QCborMap &args = {});
    void finish(const QCborValue &result = QCborMap{});
    void fail(const QString &error);
    // The same, typed: an operation's reply and events as the protocol declares them (core/agent/agentops.h,
    // agentevents.h).
    template <class Reply> void finishWith(const Reply &reply) { finish(agent::encodeFields(reply)); }
    template <class Event> void report(const Event &event)
    {
        reportEvent(QString::fromUtf16(Event::name), agent::encodeFields(event));
    }
    // Called once by stop(); the default ends the operation as failed.
    void setStopHandler(std::function<void()> handler) { m_stopHandler = std::move(handler); }
    // An interactive operation's input (a shell's keys; cols and rows > 0: its window's new size), to whoever runs
    // it: the agent's session, or through the socket from a front. Ignored by the others.
    void input(const QByteArray &bytes, int cols = 0, int rows = 0)
    {
        if (m_inputHandler && !m_done)
            m_inputHandler(bytes, cols, rows);
    }
    void setInputHandler(std::function<void(const QByteArray &, int, int)> handler)
    {
        m_inputHandler = std::move(handler);
    }

    // An operation already over: it reports its failure (or result) once the event loop runs.
    static SessionOperation *alreadyFailed(const QString &error, QObject *parent = nullptr);
    static SessionOperation *alreadyFinished(const QCborValue &result = QCborMap{}, QObject *parent = nullptr);
    template <class Reply> static SessionOperation *alreadyFinishedWith(const Reply &reply, QObject *parent)
    {
        return alreadyFinished(agent::encodeFields(reply), parent);
    }

signals:
    void started();
    void progress(const QString &step, qint64 done, qint64 total);
    void output(const QString &text);
    void event(const QString &name, const QCborMap &args);
    void finished(const QCborValue &result);
    void failed(const QString &error);

private:
    void later(std::function<void()> emitIt);

    bool m_done = false;
    std::function<void()> m_stopHandler;
    std::function<void(const QByteArray &, int, int)> m_inputHandler;
};

void warnUnreadable(const QString &what, const QString &error);

// The typed reply of an operation `Op` of the protocol's table; none (with a warning) when it is unreadable, which
// an agent of the same version never sends.
template <class Op> std::optional<typename Op::Reply> replyOf(const QCborValue &result)
{
    QString error;
    std::optional<typename Op::Reply> reply = agent::decodeFields<typename Op::Reply>(result.toMap(), &error);
    if (!reply)
        warnUnreadable(QString::fromUtf16(Op::name), error);
    return reply;
}
template <class Event> std::optional<Event> eventOf(const QString &name, const QCborMap &args)
{
    if (name != QString::fromUtf16(Event::name))
        return std::nullopt;
    QString error;
    std::optional<Event> event = agent::decodeFields<Event>(args, &error);
    if (!event)
        warnUnreadable(name, error);
    return event;
}
// `then(reply)` once the operation finished, in `context`.
template <class Op, class F> void onReply(SessionOperation *operation, QObject *context, F then)
{
    QObject::connect(operation, &SessionOperation::finished, context, [then](const QCborValue &result) {
        if (const std::optional<typename Op::Reply> reply = replyOf<Op>(result))
            then(*reply);
    });
}
// `then(event)` for each of the operation's events of that kind, in `context`.
template <class Event, class F> void onEvent(SessionOperation *operation, QObject *context, F then)
{
    QObject::connect(operation, &SessionOperation::event, context, [then](const QString &name, const QCborMap &args) {
        if (const std::optional<Event> event = eventOf<Event>(name, args))
            then(*event);
    });
}
} // namespace torchdeck
