#pragma once

#include "core/store/storeresult.h"

#include <QList>
#include <QSqlDatabase>
#include <QStringList>

namespace torchdeck {

// One step of the schema: the SQL that brings version-1 to `version`. Released migrations never change;
// a new column or table is a new migration at the end of the list.
struct StoreMigration {
    int version = 0;
    QStringList statements;
};

QList<StoreMigration> storeMigrations();

// 0 for a new, empty database. An error for a database that has tables but is not a run store.
StoreResult<int> storeSchemaVersion(QSqlDatabase &db);

// Applies the migrations the database lacks, each in its own transaction: a failure leaves the database at
// the last version that completed. A database newer than the last migration is refused (a newer torchdeck
// wrote it); so is one whose version the list skips.
StoreResult<int> migrateStore(QSqlDatabase &db, const QList<StoreMigration> &migrations);

} // namespace torchdeck
