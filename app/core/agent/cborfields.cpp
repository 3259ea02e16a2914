#include "core/agent/cborfields.h"

#include "core/coretr.h"

#include <cmath>

namespace torchdeck {

void CborFields::fail(const QString &problem)
{
    if (m_error.isEmpty())
        m_error = problem;
}

QString CborFields::text(const QString &key, bool required, qsizetype maxLength)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined() && !required)
        return {};
    if (!value.isString() || value.toString().size() > maxLength) {
        fail(core::Tr::tr("%1: a text is expected").arg(key));
        return {};
    }
    return value.toString();
}

QStringList CborFields::texts(const QString &key, qsizetype maxCount)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined())
        return {};
    if (!value.isArray() || value.toArray().size() > maxCount) {
        fail(core::Tr::tr("%1: a list of texts is expected").arg(key));
        return {};
    }
    QStringList list;
    for (const auto &item : value.toArray()) {
        if (!item.isString()) {
            fail(core::Tr::tr("%1: a list of texts is expected").arg(key));
            return {};
        }
        list.append(item.toString());
    }
    return list;
}

qint64 CborFields::integer(const QString &key, qint64 low, qint64 high, qint64 fallback)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined())
        return fallback;
    if (!value.isInteger() || value.toInteger() < low || value.toInteger() > high) {
        fail(core::Tr::tr("%1: an integer from %2 to %3 is expected").arg(key).arg(low).arg(high));
        return fallback;
    }
    return value.toInteger();
}

double CborFields::number(const QString &key, double fallback)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (value.isInteger())
        return double(value.toInteger());
    if (!value.isDouble()) {
        fail(core::Tr::tr("%1: a number is expected").arg(key));
        return fallback;
    }
    return value.toDouble();
}

bool CborFields::flag(const QString &key, bool fallback)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined())
        return fallback;
    if (!value.isBool()) {
        fail(core::Tr::tr("%1: true or false is expected").arg(key));
        return fallback;
    }
    return value.toBool();
}

QByteArray CborFields::bytes(const QString &key)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined())
        return {};
    if (!value.isByteArray()) {
        fail(core::Tr::tr("%1: bytes are expected").arg(key));
        return {};
    }
    return value.toByteArray();
}

QCborMap CborFields::map(const QString &key, bool required)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined() && !required)
        return {};
    if (!value.isMap()) {
        fail(core::Tr::tr("%1: a map is expected").arg(key));
        return {};
    }
    return value.toMap();
}

QCborArray CborFields::array(const QString &key)
{
    const QCborValue value = m_map.value(key);
    if (value.isUndefined())
        return {};
    if (!value.isArray()) {
        fail(core::Tr::tr("%1: a list is expected").arg(key));
        return {};
    }
    return value.toArray();
}

} // namespace torchdeck
