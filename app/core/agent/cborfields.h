#pragma once

#include <QCborArray>
#include <QCborMap>
#include <QString>
#include <QStringList>

namespace torchdeck {

// Reads the fields of a CBOR map that came from another process, checking each one's type and bounds. The
// first problem is kept (naming the field); every read after it still returns a harmless default, so a
// decoder reads all its fields and then asks ok() once.
class CborFields {
public:
    explicit CborFields(const QCborMap &map)
        : m_map(map)
    {
    }

    bool has(const QString &key) const { return m_map.contains(key); }
    QString text(const QString &key, bool required = false, qsizetype maxLength = 1 << 20);
    QStringList texts(const QString &key, qsizetype maxCount = 100000);
    qint64 integer(const QString &key, qint64 low, qint64 high, qint64 fallback = 0);
    double number(const QString &key, double fallback);
    bool flag(const QString &key, bool fallback = false);
    QByteArray bytes(const QString &key);
    QCborMap map(const QString &key, bool required = false);
    QCborArray array(const QString &key);
    void fail(const QString &problem);

    bool ok() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }

private:
    QCborMap m_map;
    QString m_error;
};

} // namespace torchdeck
