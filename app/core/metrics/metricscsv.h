#pragma once

#include "core/metrics/metricevent.h"

#include <QList>
#include <QString>

namespace torchdeck {

// The CSV of a run's metrics (`torchdeck metrics --csv`, the run view's "Export CSV"): a header, then one row
// per step or epoch event in arrival order with the attempt it came from; unknown values are empty cells.
// `discarded` is 1 for a row a later attempt superseded (it resumed from an earlier checkpoint, or started
// afresh): the rows with 0 are the run's one continuous curve, as the charts draw it.
// `source` says where a row was read (metrics_file, log, logger_files); then a column per named extra series.
// attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds,discarded,source[,extra...]
// One cell, RFC 4180 quoted where it holds a comma, a quote or a line break.
QString csvCell(QString text);

QString metricsCsvHeader(const QStringList &extras = {});
// The row of a step or epoch event, without a line end; empty for the other events.
QString metricsCsvRow(int attempt, const MetricEvent &event, bool discarded, const QStringList &extras = {});
// The names of the events' extra values, in the order they first appear.
QStringList extraNamesOf(const QList<StoredMetricEvent> &events);
QString metricSourceName(MetricSource source);
// The whole document, lines ended by '\n' (with joinedEpochRows' rows).
QString metricsCsv(const QList<StoredMetricEvent> &events);

// The events with an epoch printed over consecutive lines as one row (a line with its time, then one with its
// losses): an epoch event joins the last epoch event of the same attempt, source and epoch when no step event of
// that source came between, no value they both have differs and both have the same flag in `apart` (where
// given: supersededEvents(), so that a superseded value never joins a drawn one); `rowsApart` gets the rows'
// flags. The charts draw both the same either way.
QList<StoredMetricEvent> joinedEpochRows(const QList<StoredMetricEvent> &events, const QList<bool> &apart = {},
                                         QList<bool> *rowsApart = nullptr);

// Which events a later attempt superseded, or a file's values for the same series (a log event none of whose
// values is drawn), by the rules RunSeries draws with (one flag per event; only step and epoch events can be
// true).
QList<bool> supersededEvents(const QList<StoredMetricEvent> &events);

} // namespace torchdeck
