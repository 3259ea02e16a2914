#pragma once

#include "core/agent/cborfields.h"
#include "core/agent/portforward.h"
#include "core/clustercheckitem.h"
#include "core/connectionquestions.h"
#include "core/connectionstate.h"
#include "core/jobs/jobspecvalidation.h"
#include "core/metrics/metricevent.h"
#include "core/runs/launchrequest.h"

#include <QCborArray>
#include <QCborMap>
#include <QList>
#include <optional>
#include <type_traits>

namespace torchdeck {
struct AgentStatus;
}

namespace torchdeck::agent {

// The fields of a message of the agent's protocol, declared once. Each message type has
//     template <class S, class V> static void fields(S &self, V &v)
// that names every field, its key and its bounds; FieldWriter walks it to encode (self const), FieldReader to
// decode, checking each field's type and bounds as it goes. A missing optional field keeps its default; an
// unknown one is ignored; a required one that is missing is refused by name.

enum class Need { Optional, Required };
inline constexpr qsizetype kTextLimit = qsizetype(1) << 20;
inline constexpr qsizetype kListLimit = 100000;
inline constexpr qint64 kCountLimit = qint64(1) << 53; // what every CBOR reader takes as an exact integer

// The value types with a codec of their own (core/agent/agentcodec.h, portforward.h).
QCborValue encodeValue(const LaunchRequest &value);
QCborValue encodeValue(const LaunchResult &value);
QCborValue encodeValue(const ClusterCheckSettings &value);
QCborValue encodeValue(const CheckItem &value);
QCborValue encodeValue(const PortForward &value);
QCborValue encodeValue(const HostKeyCheck &value);
QCborValue encodeValue(const CredentialPrompt &value);
QCborValue encodeValue(const AgentStatus &value);
QCborValue encodeValue(const QList<MetricEvent> &value);
QCborValue encodeValue(const JobSpecError &value);
QCborValue encodeValue(ConnectionState value);
bool decodeValue(const QCborValue &cbor, LaunchRequest *value, QString *error);
bool decodeValue(const QCborValue &cbor, LaunchResult *value, QString *error);
bool decodeValue(const QCborValue &cbor, ClusterCheckSettings *value, QString *error);
bool decodeValue(const QCborValue &cbor, CheckItem *value, QString *error);
bool decodeValue(const QCborValue &cbor, PortForward *value, QString *error);
bool decodeValue(const QCborValue &cbor, HostKeyCheck *value, QString *error);
bool decodeValue(const QCborValue &cbor, CredentialPrompt *value, QString *error);
bool decodeValue(const QCborValue &cbor, AgentStatus *value, QString *error);
bool decodeValue(const QCborValue &cbor, QList<MetricEvent> *value, QString *error);
bool decodeValue(const QCborValue &cbor, JobSpecError *value, QString *error);
bool decodeValue(const QCborValue &cbor, ConnectionState *value, QString *error);

template <class T> QCborMap encodeFields(const T &value);
template <class T> std::optional<T> decodeFields(const QCborMap &map, QString *error);
// A message type nested in another (a sweep's point): its own fields, as a map.
template <class T> QCborValue encodeValue(const T &value)
{
    return encodeFields(value);
}
template <class T> bool decodeValue(const QCborValue &cbor, T *value, QString *error)
{
    if (!cbor.isMap()) {
        *error = QStringLiteral("a map is expected");
        return false;
    }
    std::optional<T> decoded = decodeFields<T>(cbor.toMap(), error);
    if (decoded)
        *value = std::move(*decoded);
    return decoded.has_value();
}

class FieldWriter {
public:
    void text(const QString &key, const QString &value, Need = Need::Optional, qsizetype = kTextLimit)
    {
        m_map.insert(key, value);
    }
    void optionalText(const QString &key, const std::optional<QString> &value, qsizetype = kTextLimit)
    {
        if (value)
            m_map.insert(key, *value);
    }
    void texts(const QString &key, const QStringList &value, qsizetype = kListLimit)
    {
        m_map.insert(key, QCborArray::fromStringList(value));
    }
    template <class I> void integer(const QString &key, const I &value, qint64, qint64, Need = Need::Optional)
    {
        m_map.insert(key, qint64(value));
    }
    void flag(const QString &key, bool value) { m_map.insert(key, value); }
    void bytes(const QString &key, const QByteArray &value) { m_map.insert(key, value); }
    template <class T> void value(const QString &key, const T &value, Need = Need::Required)
    {
        m_map.insert(key, encodeValue(value));
    }
    template <class T> void list(const QString &key, const QList<T> &values, qsizetype = kListLimit)
    {
        QCborArray array;
        for (const T &value : values)
            array.append(encodeValue(value));
        m_map.insert(key, array);
    }
    QCborMap map() const { return m_map; }

private:
    QCborMap m_map;
};

class FieldReader {
public:
    explicit FieldReader(const QCborMap &map)
        : m_map(map)
        , m_fields(map)
    {
    }
    void text(const QString &key, QString &value, Need need = Need::Optional, qsizetype maxLength = kTextLimit)
    {
        if (m_map.contains(key) || need == Need::Required)
            value = m_fields.text(key, need == Need::Required, maxLength);
    }
    void optionalText(const QString &key, std::optional<QString> &value, qsizetype maxLength = kTextLimit)
    {
        value = m_map.contains(key) ? std::optional<QString>(m_fields.text(key, true, maxLength)) : std::nullopt;
    }
    void texts(const QString &key, QStringList &value, qsizetype maxCount = kListLimit)
    {
        if (m_map.contains(key))
            value = m_fields.texts(key, maxCount);
    }
    template <class I> void integer(const QString &key, I &value, qint64 low, qint64 high, Need need = Need::Optional)
    {
        if (need == Need::Required && !m_map.contains(key))
            m_fields.fail(QStringLiteral("%1: an integer from %2 to %3 is needed").arg(key).arg(low).arg(high));
        value = I(m_fields.integer(key, low, high, qint64(value)));
    }
    void flag(const QString &key, bool &value) { value = m_fields.flag(key, value); }
    void bytes(const QString &key, QByteArray &value)
    {
        if (m_map.contains(key))
            value = m_fields.bytes(key);
    }
    template <class T> void value(const QString &key, T &value, Need need = Need::Required)
    {
        const QCborValue cbor = m_map.value(key);
        if (cbor.isUndefined()) {
            if (need == Need::Required)
                m_fields.fail(QStringLiteral("%1: missing").arg(key));
            return;
        }
        QString error;
        if (!decodeValue(cbor, &value, &error))
            m_fields.fail(QStringLiteral("%1: %2").arg(key, error));
    }
    template <class T> void list(const QString &key, QList<T> &values, qsizetype maxCount = kListLimit)
    {
        const QCborArray array = m_fields.array(key);
        if (array.size() > maxCount)
            return m_fields.fail(QStringLiteral("%1: more than %2 items").arg(key).arg(maxCount));
        values.clear();
        for (const QCborValue &each : array) {
            T value{};
            QString error;
            if (!decodeValue(each, &value, &error))
                return m_fields.fail(QStringLiteral("%1: %2").arg(key, error));
            values.append(std::move(value));
        }
    }
    bool ok() const { return m_fields.ok(); }
    QString error() const { return m_fields.error(); }

private:
    QCborMap m_map;
    CborFields m_fields;
};

template <class T> QCborMap encodeFields(const T &value)
{
    FieldWriter writer;
    T::fields(value, writer);
    return writer.map();
}

template <class T> std::optional<T> decodeFields(const QCborMap &map, QString *error)
{
    T value{};
    FieldReader reader(map);
    T::fields(value, reader);
    if (reader.ok())
        return value;
    *error = reader.error();
    return std::nullopt;
}

} // namespace torchdeck::agent
