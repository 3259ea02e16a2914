#pragma once

#include "core/store/runrecord.h"

#include <QJsonObject>

namespace torchdeck::term {

// The plain text and JSON forms of runs, shared by runs, status and the plain live view.
QString formatRunTable(const QList<RunRecord> &runs);
QString formatRunStatus(const RunRecord &run, const QList<JobRecord> &jobs);
QJsonObject runJson(const RunRecord &run, const QList<JobRecord> &jobs); // jobs empty: without "jobs"

QString formatEpochs(qint64 done, qint64 total); // "2/4", "2/?"
QString formatLoss(double loss);                 // "0.0421", "-" when unknown
// formatDuration: term/render/numberformat.h

} // namespace torchdeck::term
