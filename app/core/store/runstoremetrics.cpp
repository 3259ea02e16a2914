// RunStore: the metrics cache, one row per event, written in bulk inside one transaction.
#include "core/coretr.h"
#include "core/store/runstore.h"
#include "core/store/sqlvalues.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>
#include <cmath>
#include <functional>

namespace torchdeck {

namespace {

// metrics.event holds MetricEventKind's values: they are stored, so the enum only ever grows at its end.
constexpr auto kMetricColumns = "attempt, event, time, epoch, step, epochs, epoch_step, steps_per_epoch, loss, lr, "
                                "samples_per_s, val_loss, val_accuracy, seconds, extra, source";
// The fields of kMetricColumns' count columns (epoch .. steps_per_epoch), then of its real ones (loss .. seconds).
constexpr int kFirstCountColumn = 3;
constexpr qint64 MetricEvent::*kCountFields[] = {&MetricEvent::epoch, &MetricEvent::step, &MetricEvent::epochs,
                                                 &MetricEvent::epochStep, &MetricEvent::stepsPerEpoch};
constexpr double MetricEvent::*kRealFields[] = {
    &MetricEvent::loss,    &MetricEvent::lr,          &MetricEvent::samplesPerSecond,
    &MetricEvent::valLoss, &MetricEvent::valAccuracy, &MetricEvent::seconds};

// The rare fields of start, checkpoint and stop events, as JSON; NULL for step and epoch events (the bulk).
QVariant extraJson(const MetricEvent &e)
{
    QJsonObject o;
    if (!e.extras.isEmpty()) {
        QJsonArray values; // pairs, in the order the logger wrote them
        for (const NamedValue &value : e.extras)
            values.append(QJsonArray{value.name, value.value});
        o.insert(u"values", values);
    }
    // How a log placed the event: read on by the next pass over the log (resumeLogParser), said in --json.
    if (e.stepCounted)
        o.insert(u"step_counted", true);
    if (e.epochFromZero)
        o.insert(u"epoch_from_zero", true);
    for (const auto &[key, values] :
         {std::pair{u"rank_compute", &e.rankComputeSeconds}, std::pair{u"rank_wait", &e.rankWaitSeconds}}) {
        if (!values->isEmpty()) {
            QJsonArray array;
            for (const double v : *values)
                array.append(std::isfinite(v) ? QJsonValue(v) : QJsonValue());
            o.insert(QStringView(key), array);
        }
    }
    if (e.kind == MetricEventKind::Step || e.kind == MetricEventKind::Epoch)
        return o.isEmpty() ? QVariant() : QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    auto text = [&o](const char *key, const QString &value) {
        if (!value.isEmpty())
            o.insert(QLatin1StringView(key), value);
    };
    text("path", e.path);
    text("reason", e.reason);
    text("model", e.model);
    text("dataset", e.dataset);
    text("resume_path", e.resumePath);
    text("signal", e.signal);
    text("message", e.message);
    if (e.bytes >= 0)
        o.insert(u"bytes", e.bytes);
    if (e.worldSize != 0)
        o.insert(u"world_size", e.worldSize);
    if (e.exitCode != 0)
        o.insert(u"exit_code", e.exitCode);
    if (e.resumed) {
        o.insert(u"resumed", true);
        o.insert(u"resume_epoch", e.resumeEpoch);
        o.insert(u"resume_step", e.resumeStep);
        if (e.resumeSkipped > 0)
            o.insert(u"resume_skipped", e.resumeSkipped);
    }
    if (o.isEmpty())
        return {};
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

void readExtra(const QVariant &json, MetricEvent *e)
{
    if (json.isNull())
        return;
    const QJsonObject o = QJsonDocument::fromJson(json.toString().toUtf8()).object();
    e->path = o.value(u"path").toString();
    e->reason = o.value(u"reason").toString();
    e->model = o.value(u"model").toString();
    e->dataset = o.value(u"dataset").toString();
    e->resumePath = o.value(u"resume_path").toString();
    e->signal = o.value(u"signal").toString();
    e->message = o.value(u"message").toString();
    e->bytes = o.value(u"bytes").toInteger(kNoCount);
    e->worldSize = o.value(u"world_size").toInt();
    e->exitCode = o.value(u"exit_code").toInt();
    e->resumed = o.value(u"resumed").toBool();
    e->resumeEpoch = o.value(u"resume_epoch").toInteger(kNoCount);
    e->resumeStep = o.value(u"resume_step").toInteger(kNoCount);
    e->resumeSkipped = o.value(u"resume_skipped").toInteger(0);
    e->stepCounted = o.value(u"step_counted").toBool();
    e->epochFromZero = o.value(u"epoch_from_zero").toBool();
    for (const auto &[key, values] :
         {std::pair{u"rank_compute", &e->rankComputeSeconds}, std::pair{u"rank_wait", &e->rankWaitSeconds}}) {
        const QJsonArray array = o.value(QStringView(key)).toArray();
        for (const QJsonValue &v : array)
            values->append(v.isDouble() ? v.toDouble() : kNoValue);
    }
    const QJsonArray values = o.value(u"values").toArray();
    for (const auto &pair : values) {
        const QJsonArray nameValue = pair.toArray();
        if (nameValue.size() == 2 && nameValue.at(1).isDouble())
            e->extras.append({nameValue.at(0).toString(), nameValue.at(1).toDouble()});
    }
}

StoredMetricEvent readRow(const QSqlQuery &q)
{
    StoredMetricEvent s;
    s.attempt = q.value(0).toInt();
    MetricEvent &e = s.event;
    e.kind = static_cast<MetricEventKind>(q.value(1).toInt());
    e.time = sql::toReal(q.value(2));
    int column = kFirstCountColumn;
    for (const auto field : kCountFields)
        e.*field = sql::toCount(q.value(column++));
    for (const auto field : kRealFields)
        e.*field = sql::toReal(q.value(column++));
    readExtra(q.value(column++), &e);
    e.source = static_cast<MetricSource>(q.value(column).toInt());
    return s;
}

// The events after the run's last, inside the caller's transaction.
StoreStatus insertEvents(QSqlDatabase &db, qint64 key, const QString &runId, int attempt,
                         const QList<MetricEvent> &events)
{
    QSqlQuery next(db);
    next.prepare(QStringLiteral("SELECT COALESCE(MAX(seq), -1) + 1 FROM metrics WHERE run_key = ?"));
    next.addBindValue(key);
    if (!next.exec() || !next.next())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot append metrics of run %1").arg(runId), next));
    qint64 seq = next.value(0).toLongLong();
    next.finish();

    QSqlQuery insert(db);
    insert.prepare(QStringLiteral("INSERT INTO metrics (run_key, seq, %1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                  "?, ?, ?, ?, ?, ?, ?)")
                       .arg(QLatin1StringView(kMetricColumns)));
    for (const MetricEvent &e : events) {
        int i = 0;
        for (const QVariant &v :
             {QVariant(key), QVariant(seq++), QVariant(attempt), QVariant(static_cast<int>(e.kind)), sql::real(e.time)})
            insert.bindValue(i++, v);
        for (const auto field : kCountFields)
            insert.bindValue(i++, sql::count(e.*field));
        for (const auto field : kRealFields)
            insert.bindValue(i++, sql::real(e.*field));
        insert.bindValue(i++, extraJson(e));
        insert.bindValue(i, static_cast<int>(e.source));
        if (!insert.exec())
            return StoreStatus::failure(sql::error(core::Tr::tr("cannot append metrics of run %1").arg(runId), insert));
    }
    return {};
}

} // namespace

StoreStatus RunStore::appendMetrics(const QString &runId, int attempt, const QList<MetricEvent> &events)
{
    const StoreResult<bool> appended = appendMetrics(runId, attempt, events, -1, -1);
    return appended.ok() ? StoreStatus{} : StoreStatus::failure(appended.error);
}

StoreResult<bool> RunStore::appendInTransaction(const QString &runId, int attempt, const QList<MetricEvent> &events,
                                                const std::function<StoreResult<bool>(QSqlDatabase &)> &moveOffset)
{
    using Result = StoreResult<bool>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlDatabase db = database();
    sql::Transaction transaction(db);
    if (!transaction.begun())
        return Result::failure(transaction.beginError());
    const StoreResult<qint64> key = runKey(db, runId);
    if (!key.ok())
        return Result::failure(key.error);
    // The offset first, and only from where this reader began: another process (a second front on the same
    // store) that stored these values already moved it, and they must not be stored twice.
    Result moved = moveOffset(db);
    if (!moved.ok() || !moved.value)
        return moved;
    if (const StoreStatus inserted = insertEvents(db, key.value, runId, attempt, events); !inserted.ok())
        return Result::failure(inserted.error);
    if (!transaction.commit())
        return Result::failure(core::Tr::tr("cannot commit metrics of run %1: %2").arg(runId, transaction.error()));
    return {true, {}};
}

StoreResult<bool> RunStore::appendMetrics(const QString &runId, int attempt, const QList<MetricEvent> &events,
                                          qint64 fromOffset, qint64 toOffset, TailedFile file)
{
    using Result = StoreResult<bool>;
    return appendInTransaction(runId, attempt, events, [&](QSqlDatabase &db) -> Result {
        if (toOffset < 0)
            return {true, {}};
        QSqlQuery offset(db);
        offset.prepare(file == TailedFile::Metrics
                           ? QStringLiteral("UPDATE jobs SET metrics_offset = ? WHERE run_id = ? AND attempt = ? "
                                            "AND metrics_offset = ?")
                           : QStringLiteral("UPDATE jobs SET stdout_offset = ? WHERE run_id = ? AND attempt = ? "
                                            "AND stdout_offset = ?"));
        for (const QVariant &v : {QVariant(toOffset), sql::text(runId), QVariant(attempt), QVariant(fromOffset)})
            offset.addBindValue(v);
        if (!offset.exec())
            return Result::failure(
                sql::error(core::Tr::tr("cannot save the metrics offset of run %1").arg(runId), offset));
        if (offset.numRowsAffected() > 0)
            return {true, {}};
        QSqlQuery exists(db);
        exists.prepare(QStringLiteral("SELECT 1 FROM jobs WHERE run_id = ? AND attempt = ?"));
        exists.addBindValue(runId);
        exists.addBindValue(attempt);
        if (!exists.exec())
            return Result::failure(sql::error(core::Tr::tr("cannot read the jobs of run %1").arg(runId), exists));
        if (!exists.next())
            return Result::failure(core::Tr::tr("run %1 has no attempt %2").arg(runId).arg(attempt));
        return {false, {}};
    });
}

namespace {

// Every metrics row of the run `runKey` found (RunStore::runKey), in order, to `take`.
StoreStatus scanMetrics(const QSqlDatabase &db, const StoreResult<qint64> &runKey,
                        const std::function<void(const StoredMetricEvent &)> &take)
{
    if (!runKey.ok())
        return StoreStatus::failure(runKey.error);
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(
        QStringLiteral("SELECT %1 FROM metrics WHERE run_key = ? ORDER BY seq").arg(QLatin1StringView(kMetricColumns)));
    q.addBindValue(runKey.value);
    if (!q.exec())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot read metrics"), q));
    while (q.next())
        take(readRow(q));
    if (q.lastError().isValid())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot read metrics"), q));
    return {};
}

// The one number `select` reads for the run `runId`; `error` says what could not be read.
StoreResult<qint64> selectNumber(const QSqlDatabase &db, const QString &select, const QString &runId,
                                 const QString &error)
{
    QSqlQuery q(db);
    q.prepare(select);
    q.addBindValue(runId);
    if (!q.exec() || !q.next())
        return StoreResult<qint64>::failure(sql::error(error, q));
    return {q.value(0).toLongLong(), {}};
}

} // namespace

StoreResult<QList<StoredMetricEvent>> RunStore::metrics(const QString &runId) const
{
    using Result = StoreResult<QList<StoredMetricEvent>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlDatabase db = database();
    Result result;
    const StoreStatus status =
        scanMetrics(db, runKey(db, runId), [&](const StoredMetricEvent &e) { result.value.append(e); });
    if (!status.ok())
        return Result::failure(status.error);
    return result;
}

StoreResult<RunSeries> RunStore::runSeries(const QString &runId) const
{
    return runSeries(runId, nullptr);
}

StoreResult<RunSeries> RunStore::runSeries(const QString &runId, qint64 *end) const
{
    using Result = StoreResult<RunSeries>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlDatabase db = database();
    // Replayed row by row: a million-step run never exists as a list of events.
    Result result;
    // One statement reads every row and its position, so the end matches what was read.
    qint64 rows = 0;
    const StoreStatus status = scanMetrics(db, runKey(db, runId), [&](const StoredMetricEvent &e) {
        result.value.apply(e.event, e.attempt);
        ++rows;
    });
    if (!status.ok())
        return Result::failure(status.error);
    if (end)
        *end = rows;
    return result;
}

StoreResult<qint64> RunStore::metricsEnd(const QString &runId) const
{
    if (!isOpen())
        return StoreResult<qint64>::failure(notOpen().error);
    return selectNumber(
        database(),
        QStringLiteral(
            "SELECT COALESCE(MAX(m.seq), -1) + 1 FROM metrics m JOIN runs r ON r.key = m.run_key WHERE r.id = ?"),
        runId, core::Tr::tr("cannot read metrics of run %1").arg(runId));
}

StoreResult<qint64> RunStore::metricsCount(const QString &runId) const
{
    if (!isOpen())
        return StoreResult<qint64>::failure(notOpen().error);
    return selectNumber(
        database(), QStringLiteral("SELECT COUNT(*) FROM metrics m JOIN runs r ON r.key = m.run_key WHERE r.id = ?"),
        runId, core::Tr::tr("cannot count metrics of run %1").arg(runId));
}

StoreStatus RunStore::clearMetrics(const QString &runId)
{
    if (!isOpen())
        return notOpen();
    QSqlQuery q(database());
    q.prepare(QStringLiteral("DELETE FROM metrics WHERE run_key = (SELECT key FROM runs WHERE id = ?)"));
    q.addBindValue(runId);
    if (!q.exec())
        return StoreStatus::failure(sql::error(core::Tr::tr("cannot clear metrics of run %1").arg(runId), q));
    return {};
}

} // namespace torchdeck

namespace torchdeck {

StoreResult<QList<LoggerFileRecord>> RunStore::loggerFiles(const QString &runId) const
{
    using Result = StoreResult<QList<LoggerFileRecord>>;
    if (!isOpen())
        return Result::failure(notOpen().error);
    QSqlQuery q(database());
    q.prepare(QStringLiteral("SELECT path, attempt, offset, size FROM logger_files WHERE run_id = ? ORDER BY path"));
    q.addBindValue(runId);
    if (!q.exec())
        return Result::failure(sql::error(core::Tr::tr("cannot read the logger files of run %1").arg(runId), q));
    Result result;
    while (q.next())
        result.value.append(
            {q.value(0).toString(), q.value(1).toInt(), q.value(2).toLongLong(), q.value(3).toLongLong()});
    return result;
}

StoreResult<bool> RunStore::appendLoggerFileMetrics(const QString &runId, const LoggerFileRecord &before,
                                                    const LoggerFileRecord &after, const QList<MetricEvent> &events)
{
    using Result = StoreResult<bool>;
    return appendInTransaction(runId, after.attempt, events, [&](QSqlDatabase &db) -> Result {
        QSqlQuery moved(db);
        if (before.offset == 0 && before.size == 0) {
            moved.prepare(QStringLiteral("INSERT OR IGNORE INTO logger_files (run_id, path, attempt, offset, size) "
                                         "VALUES (?, ?, ?, ?, ?)"));
            for (const QVariant &v : {QVariant(runId), QVariant(after.path), QVariant(after.attempt),
                                      QVariant(after.offset), QVariant(after.size)})
                moved.addBindValue(v);
        } else {
            moved.prepare(QStringLiteral("UPDATE logger_files SET offset = ?, size = ? WHERE run_id = ? AND path = ? "
                                         "AND offset = ? AND size = ?"));
            for (const QVariant &v : {QVariant(after.offset), QVariant(after.size), QVariant(runId),
                                      QVariant(after.path), QVariant(before.offset), QVariant(before.size)})
                moved.addBindValue(v);
        }
        if (!moved.exec())
            return Result::failure(
                sql::error(core::Tr::tr("cannot save the logger file offset of run %1").arg(runId), moved));
        return {moved.numRowsAffected() > 0, {}};
    });
}

} // namespace torchdeck
