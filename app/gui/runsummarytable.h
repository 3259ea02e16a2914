#pragma once

#include "core/metrics/runsummary.h"

#include <QColor>
#include <QTableWidget>

namespace torchdeck {

// Beside the overlaid charts: each run's final and best values (core/metrics/runsummary.h), one column per
// run headed by its name in its curve's colour, the best of each row in bold.
class RunSummaryTable : public QTableWidget {
    Q_OBJECT
public:
    struct Row {
        QString name;
        QColor color;
        RunSummary summary;
    };
    explicit RunSummaryTable(QWidget *parent = nullptr);
    void setRows(const QList<Row> &rows);
};

} // namespace torchdeck
