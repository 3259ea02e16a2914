#include "core/agent/agentprotocol.h"

#include "core/appidentity.h"
#include "core/coretr.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QtEndian>
#include <algorithm>

namespace torchdeck {

namespace {
constexpr qsizetype headerBytes = 4;

// Short keys: every message carries them.
const QString keyVersion = QStringLiteral("v");
const QString keyKind = QStringLiteral("k");
const QString keyId = QStringLiteral("id");
const QString keyOp = QStringLiteral("op");
const QString keyArgs = QStringLiteral("a");
const QString keyOk = QStringLiteral("ok");
const QString keyError = QStringLiteral("err");
const QString keyResult = QStringLiteral("r");

QString kindName(AgentMessageKind kind)
{
    switch (kind) {
    case AgentMessageKind::Request:
        return QStringLiteral("req");
    case AgentMessageKind::Reply:
        return QStringLiteral("rep");
    case AgentMessageKind::Event:
        return QStringLiteral("evt");
    }
    return {};
}

std::optional<AgentMessageKind> kindFromName(const QString &name)
{
    for (const AgentMessageKind kind : {AgentMessageKind::Request, AgentMessageKind::Reply, AgentMessageKind::Event}) {
        if (kindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

// The fields every kind of message has; a request's or an event's operation and arguments.
AgentMessage agentMessage(AgentMessageKind kind, qint64 id, const QString &op = {}, const QCborMap &args = {})
{
    AgentMessage m;
    m.kind = kind;
    m.id = id;
    m.op = op;
    m.args = args;
    return m;
}

constexpr qint64 maxId = qint64(1) << 53; // what every CBOR reader takes as an exact integer
constexpr qsizetype maxOpLength = 64;
} // namespace

QString agentBuildVersion(const QString &executable)
{
    return QStringLiteral("%1+%2")
        .arg(torchdeckVersion())
        .arg(QFileInfo(executable).lastModified().toMSecsSinceEpoch());
}

AgentMessage agentRequest(qint64 id, const QString &op, const QCborMap &args)
{
    return agentMessage(AgentMessageKind::Request, id, op, args);
}

AgentMessage agentReply(qint64 id, const QCborValue &result)
{
    AgentMessage m = agentMessage(AgentMessageKind::Reply, id);
    m.result = result;
    return m;
}

AgentMessage agentErrorReply(qint64 id, const QString &error)
{
    AgentMessage m = agentMessage(AgentMessageKind::Reply, id);
    m.ok = false;
    m.error = error;
    return m;
}

AgentMessage agentEvent(const QString &name, const QCborMap &args, qint64 id)
{
    return agentMessage(AgentMessageKind::Event, id, name, args);
}

QByteArray encodeAgentFrame(const AgentMessage &message)
{
    QCborMap map;
    map.insert(keyVersion, message.version);
    map.insert(keyKind, kindName(message.kind));
    map.insert(keyId, message.id);
    if (message.kind == AgentMessageKind::Reply) {
        map.insert(keyOk, message.ok);
        if (message.ok)
            map.insert(keyResult, message.result);
        else
            map.insert(keyError, message.error);
    } else {
        map.insert(keyOp, message.op);
        if (!message.args.isEmpty())
            map.insert(keyArgs, message.args);
    }
    const QByteArray payload = map.toCborValue().toCbor();
    QByteArray frame(headerBytes, Qt::Uninitialized);
    qToBigEndian(quint32(payload.size()), frame.data());
    return frame + payload;
}

std::optional<AgentMessage> decodeAgentMessage(const QByteArray &payload, QString *error)
{
    QCborParserError parseError;
    const QCborValue value = QCborValue::fromCbor(payload, &parseError);
    if (parseError.error != QCborError::NoError) {
        *error = core::Tr::tr("not a CBOR message: %1").arg(parseError.errorString());
        return std::nullopt;
    }
    if (!value.isMap()) {
        *error = core::Tr::tr("a message is a CBOR map");
        return std::nullopt;
    }
    const QCborMap map = value.toMap();
    AgentMessage m;
    const QCborValue version = map.value(keyVersion);
    const QCborValue id = map.value(keyId);
    if (!version.isInteger() || !id.isInteger() || id.toInteger() < 0 || id.toInteger() > maxId) {
        *error = core::Tr::tr("a message needs an integer version and id");
        return std::nullopt;
    }
    m.version = int(std::clamp<qint64>(version.toInteger(), 0, 1 << 30));
    m.id = id.toInteger();
    if (m.version != kAgentProtocolVersion) {
        // The receiver answers that it speaks another version; a request's name is kept, since a handover is
        // asked in the same words by every version.
        if (const QCborValue op = map.value(keyOp); op.isString() && op.toString().size() <= maxOpLength)
            m.op = op.toString();
        return m;
    }
    const std::optional<AgentMessageKind> kind = kindFromName(map.value(keyKind).toString());
    if (!kind) {
        *error = core::Tr::tr("unknown message kind");
        return std::nullopt;
    }
    m.kind = *kind;
    if (m.kind == AgentMessageKind::Reply) {
        const QCborValue ok = map.value(keyOk);
        if (!ok.isBool()) {
            *error = core::Tr::tr("a reply needs ok");
            return std::nullopt;
        }
        m.ok = ok.toBool();
        if (m.ok) {
            m.result = map.value(keyResult);
        } else {
            const QCborValue text = map.value(keyError);
            if (!text.isString()) {
                *error = core::Tr::tr("a failed reply needs its error");
                return std::nullopt;
            }
            m.error = text.toString();
        }
        return m;
    }
    const QCborValue op = map.value(keyOp);
    const QCborValue args = map.value(keyArgs);
    if (!op.isString() || op.toString().isEmpty() || op.toString().size() > maxOpLength) {
        *error = core::Tr::tr("a request or event needs its name");
        return std::nullopt;
    }
    if (!args.isUndefined() && !args.isMap()) {
        *error = core::Tr::tr("arguments are a map");
        return std::nullopt;
    }
    m.op = op.toString();
    m.args = args.toMap();
    return m;
}

void AgentFrameReader::append(const QByteArray &bytes)
{
    if (failed())
        return;
    if (m_read > 0 && m_read == m_buffer.size()) {
        m_buffer.clear();
        m_read = 0;
    }
    m_buffer.append(bytes);
}

std::optional<QByteArray> AgentFrameReader::next()
{
    if (failed() || buffered() < headerBytes)
        return std::nullopt;
    const quint32 length = qFromBigEndian<quint32>(m_buffer.constData() + m_read);
    if (qsizetype(length) > kMaxAgentFrameBytes) {
        m_error = core::Tr::tr("a frame of %1 bytes is over the limit of %2").arg(length).arg(kMaxAgentFrameBytes);
        m_buffer.clear();
        m_read = 0;
        return std::nullopt;
    }
    if (buffered() < headerBytes + qsizetype(length))
        return std::nullopt;
    QByteArray payload = m_buffer.mid(m_read + headerBytes, length);
    m_read += headerBytes + qsizetype(length);
    if (m_read > qsizetype(64) * 1024 && m_read * 2 > m_buffer.size()) { // keep the buffer from growing without end
        m_buffer.remove(0, m_read);
        m_read = 0;
    }
    return payload;
}

} // namespace torchdeck
