#pragma once

#include "core/store/runrecord.h"

#include <QHash>
#include <QJsonObject>

namespace torchdeck::term {

// The plain text and JSON forms of runs, shared by runs, status and the plain live view.
// `why`: by run id, why a run waits or how it ended (core/runs/jobscheduling.h's jobWhy), the last column.
QString formatRunTable(const QList<RunRecord> &runs, const QHash<QString, QString> &why = {});
// Columns padded to their widest cell plus two, the last unpadded: the plain tables of runs and sweeps.
QString formatColumns(const QStringList &headers, const QList<QStringList> &rows);
// The cluster an attempt was sent to (a run continued elsewhere with `resume --on` has several), and whether
// the run's attempts went to more than one: then each is labelled with its own.
QString clusterOfJob(const RunRecord &run, const JobRecord &job);
bool spansClusters(const RunRecord &run, const QList<JobRecord> &jobs);
QString formatRunStatus(const RunRecord &run, const QList<JobRecord> &jobs);
// jobs empty: without "jobs", "reason", "start_estimate" and "why" (those of the job that speaks for the run).
QJsonObject runJson(const RunRecord &run, const QList<JobRecord> &jobs);

QString formatEpochs(qint64 done, qint64 total); // "2/4", "2/?"
QString formatLoss(double loss);                 // "0.0421", "-" when unknown
// formatDuration: term/render/numberformat.h

} // namespace torchdeck::term
