#pragma once

// Conversions between the store's value structs and SQL values: NaN and -1 mean NULL.
#include "core/coretr.h"
#include "core/store/storeresult.h"

#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <cmath>

namespace torchdeck::sql {

// One transaction, begun on construction and rolled back on destruction unless it was committed.
class Transaction {
public:
    explicit Transaction(const QSqlDatabase &db)
        : m_db(db)
        , m_begun(m_db.transaction())
    {
    }
    ~Transaction()
    {
        if (m_begun && !m_committed)
            m_db.rollback();
    }
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;

    bool begun() const { return m_begun; }
    bool commit() { return m_committed = m_db.commit(); }
    QString error() const { return m_db.lastError().text(); }
    QString beginError() const { return core::Tr::tr("cannot begin a transaction: %1").arg(error()); }

private:
    QSqlDatabase m_db;
    bool m_begun;
    bool m_committed = false;
};

// QSQLITE binds a null QString as NULL: text columns are NOT NULL, so null becomes "".
inline QVariant text(const QString &s)
{
    return s.isNull() ? QVariant(QString(QLatin1StringView(""))) : QVariant(s);
}

inline QVariant real(double v)
{
    return std::isnan(v) ? QVariant() : QVariant(v);
}

inline QVariant count(qint64 v)
{
    return v < 0 ? QVariant() : QVariant(v);
}

inline QVariant msecs(const QDateTime &t)
{
    return t.isValid() ? QVariant(t.toMSecsSinceEpoch()) : QVariant();
}

inline double toReal(const QVariant &v)
{
    return v.isNull() ? std::nan("") : v.toDouble();
}

inline qint64 toCount(const QVariant &v)
{
    return v.isNull() ? -1 : v.toLongLong();
}

inline QDateTime toDateTime(const QVariant &v)
{
    return v.isNull() ? QDateTime() : QDateTime::fromMSecsSinceEpoch(v.toLongLong(), Qt::UTC);
}

// "what: the driver's message"
QString error(const QString &what, const QSqlQuery &query);

// Runs a prepared statement: its error, told as `what`.
StoreStatus exec(QSqlQuery &query, const QString &what);
// The same for a statement that must change a row: `missing` when it changed none.
StoreStatus execOnRow(QSqlQuery &query, const QString &what, const QString &missing);
// Commits what went well so far (`saved`), else leaves it to be rolled back: what the write returns.
StoreStatus commit(Transaction &transaction, StoreStatus saved, const QString &runId);

} // namespace torchdeck::sql
