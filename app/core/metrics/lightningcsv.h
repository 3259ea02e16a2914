#pragma once

#include "core/metrics/metricevent.h"

#include <QByteArray>
#include <QList>

namespace torchdeck {

// PyTorch Lightning's CSVLogger metrics.csv. The logger rewrites the whole file when a new column appears,
// so it is read whole each time and progress is counted in rows, not bytes. A row (one log_metrics call)
// makes an Epoch event when it holds an epoch value (isEpochRole), with the row's extras, else a Step event
// of its loss, lr and extras; a row with both makes both, Step first. Events have step = the `step` cell
// and epoch = the `epoch` cell + 1 (Lightning counts epochs from 0), and no time (the file has none).
class LightningCsvReader {
public:
    // The events of the complete data rows after the first `rowsAlreadyRead`. A last row without its '\n'
    // is still being written: it counts next time. RFC 4180 quoting; empty cells are no value.
    QList<MetricEvent> read(const QByteArray &wholeFile, qsizetype rowsAlreadyRead);
    // Complete data rows of the file last read; fewer than rowsAlreadyRead means it was replaced.
    qsizetype rows() const { return m_rows; }
    // Cells of the rows returned so far that are not numbers (skipped).
    qint64 malformed() const { return m_malformed; }

private:
    qsizetype m_rows = 0;
    qint64 m_malformed = 0;
};

} // namespace torchdeck
