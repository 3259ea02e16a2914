#pragma once

#include "core/metrics/runsummary.h"

#include <QColor>
#include <QTableWidget>

namespace torchdeck {

// Under the overlaid charts, the charts' legend: a row per run, its full name beside a sample of its curve
// (solid: the shown run, dashed: a compared one), then its final and best values (core/metrics/runsummary.h),
// the best of each column in bold. As tall as its rows.
class RunSummaryTable : public QTableWidget {
    Q_OBJECT
public:
    struct Row {
        QString name;
        QColor color;
        RunSummary summary;
        bool dashed = false;
    };
    explicit RunSummaryTable(QWidget *parent = nullptr);
    void setRows(const QList<Row> &rows);

private:
    void fitHeight();
};

} // namespace torchdeck
