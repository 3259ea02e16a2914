#pragma once

#include <QByteArray>
#include <QCborMap>
#include <QCborValue>
#include <QMetaType>
#include <QString>
#include <optional>

namespace torchdeck {

// The local socket protocol between the agent and its fronts (docs/agent.md). Every message is one frame:
// four bytes of big-endian length, then a CBOR map. The decoder trusts nothing: a frame over the limit, a
// value that is not a map or a field of the wrong type is an error, never a crash or a huge allocation.

// Raised when a message changes meaning; a front and an agent that differ hand over (docs/agent.md).
inline constexpr int kAgentProtocolVersion = 2;
// How long an agent waits for a new front's hello, and a front for the agent's answer to it: past it, the agent
// drops the front, and the front says the agent does not answer (stopped, swapping) instead of waiting.
inline constexpr int kAgentHelloDeadlineMs = 5000;
inline constexpr int kAgentAnswerDeadlineMs = 10000;
// A frame's limit: metrics batches and log chunks stay far below it.
inline constexpr qsizetype kMaxAgentFrameBytes = qsizetype(16) * 1024 * 1024;

// What a front and an agent compare in their hello: the version of the torchdeck at `executable`, the
// application's and when the file was built. The agent says its own (read when it started); a front expects the
// one of the program it would start as the agent, so a rebuilt or reinstalled binary replaces an older agent.
QString agentBuildVersion(const QString &executable);

enum class AgentMessageKind { Request, Reply, Event };

// A request names an operation and carries its arguments; the agent answers each with exactly one reply of the
// same id (ok with a result, or an error). Between the two, events with that id report progress; events with
// id 0 are the agent's news for every front (a run changed, a cluster connected).
struct AgentMessage {
    AgentMessageKind kind = AgentMessageKind::Event;
    int version = kAgentProtocolVersion;
    qint64 id = 0;
    QString op;    // request: the operation; event: its name
    QCborMap args; // request and event
    bool ok = true;
    QString error;     // a reply that is not ok
    QCborValue result; // an ok reply
};

AgentMessage agentRequest(qint64 id, const QString &op, const QCborMap &args = {});
AgentMessage agentReply(qint64 id, const QCborValue &result);
AgentMessage agentErrorReply(qint64 id, const QString &error);
AgentMessage agentEvent(const QString &name, const QCborMap &args, qint64 id = 0);

// The frame of a message, length included.
QByteArray encodeAgentFrame(const AgentMessage &message);

// One frame's payload decoded; `error` says what is wrong with it. A message of another protocol version is
// decoded as far as its version, id and operation's name, so the receiver can answer that it speaks another (or
// hand over: that request is the same in every version).
std::optional<AgentMessage> decodeAgentMessage(const QByteArray &payload, QString *error);

// Cuts a byte stream into frame payloads. After an error (a length over the limit) it stays failed: the
// stream cannot be resynchronised, and the connection is to be closed.
class AgentFrameReader {
public:
    void append(const QByteArray &bytes);
    // The next whole payload, if one has arrived.
    std::optional<QByteArray> next();
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    qsizetype buffered() const { return m_buffer.size() - m_read; }

private:
    QByteArray m_buffer;
    qsizetype m_read = 0;
    QString m_error;
};

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::AgentMessage)
