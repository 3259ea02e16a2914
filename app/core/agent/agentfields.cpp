#include "core/agent/agentfields.h"

#include "core/agent/agentcodec.h"
#include "core/coretr.h"

namespace torchdeck::agent {

namespace {
// A value type's map codec (core/agent/agentcodec.h) as the fields' decoder wants it.
template <class T>
bool decodeMap(const QCborValue &cbor, T *value, QString *error,
               std::optional<T> (*decode)(const QCborMap &, QString *))
{
    if (!cbor.isMap()) {
        *error = core::Tr::tr("a map is expected");
        return false;
    }
    std::optional<T> decoded = decode(cbor.toMap(), error);
    if (decoded)
        *value = std::move(*decoded);
    return decoded.has_value();
}
} // namespace

QCborValue encodeValue(const LaunchRequest &value)
{
    return launchRequestToCbor(value);
}
QCborValue encodeValue(const LaunchResult &value)
{
    return launchResultToCbor(value);
}
QCborValue encodeValue(const ClusterCheckSettings &value)
{
    return checkSettingsToCbor(value);
}
QCborValue encodeValue(const CheckItem &value)
{
    return checkItemToCbor(value);
}
QCborValue encodeValue(const PortForward &value)
{
    return portForwardToCbor(value);
}
QCborValue encodeValue(const HostKeyCheck &value)
{
    return hostKeyToCbor(value);
}
QCborValue encodeValue(const CredentialPrompt &value)
{
    return credentialPromptToCbor(value);
}
QCborValue encodeValue(const AgentStatus &value)
{
    return agentStatusToCbor(value);
}
QCborValue encodeValue(const QList<MetricEvent> &value)
{
    return metricEventsToCbor(value);
}
QCborValue encodeValue(const JobSpecError &value)
{
    return QCborMap{{QStringLiteral("field"), value.field}, {QStringLiteral("message"), value.message}};
}
QCborValue encodeValue(ConnectionState value)
{
    return int(value);
}

bool decodeValue(const QCborValue &cbor, LaunchRequest *value, QString *error)
{
    return decodeMap(cbor, value, error, launchRequestFromCbor);
}
bool decodeValue(const QCborValue &cbor, LaunchResult *value, QString *error)
{
    return decodeMap(cbor, value, error, launchResultFromCbor);
}
bool decodeValue(const QCborValue &cbor, ClusterCheckSettings *value, QString *error)
{
    return decodeMap(cbor, value, error, checkSettingsFromCbor);
}
bool decodeValue(const QCborValue &cbor, CheckItem *value, QString *error)
{
    return decodeMap(cbor, value, error, checkItemFromCbor);
}
bool decodeValue(const QCborValue &cbor, PortForward *value, QString *error)
{
    return decodeMap(cbor, value, error, portForwardFromCbor);
}
bool decodeValue(const QCborValue &cbor, HostKeyCheck *value, QString *error)
{
    return decodeMap(cbor, value, error, hostKeyFromCbor);
}
bool decodeValue(const QCborValue &cbor, CredentialPrompt *value, QString *error)
{
    return decodeMap(cbor, value, error, credentialPromptFromCbor);
}
bool decodeValue(const QCborValue &cbor, AgentStatus *value, QString *error)
{
    return decodeMap(cbor, value, error, agentStatusFromCbor);
}
bool decodeValue(const QCborValue &cbor, QList<MetricEvent> *value, QString *error)
{
    if (!cbor.isArray()) {
        *error = core::Tr::tr("a list is expected");
        return false;
    }
    std::optional<QList<MetricEvent>> decoded = metricEventsFromCbor(cbor.toArray(), error);
    if (decoded)
        *value = std::move(*decoded);
    return decoded.has_value();
}
bool decodeValue(const QCborValue &cbor, JobSpecError *value, QString *error)
{
    if (!cbor.isMap()) {
        *error = core::Tr::tr("a map is expected");
        return false;
    }
    FieldReader reader(cbor.toMap());
    reader.text(QStringLiteral("field"), value->field, Need::Optional, 1024);
    reader.text(QStringLiteral("message"), value->message, Need::Required);
    if (!reader.ok())
        *error = reader.error();
    return reader.ok();
}
bool decodeValue(const QCborValue &cbor, ConnectionState *value, QString *error)
{
    const std::optional<ConnectionState> decoded = connectionStateFromCbor(cbor);
    if (!decoded) {
        *error = core::Tr::tr("a connection state is expected");
        return false;
    }
    *value = *decoded;
    return true;
}

} // namespace torchdeck::agent
