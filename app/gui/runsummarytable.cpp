#include "gui/runsummarytable.h"

#include <QHeaderView>
#include <cmath>
#include <functional>

namespace torchdeck {

namespace {

QString number(double value)
{
    return std::isnan(value) ? QStringLiteral("-") : QString::number(value, 'g', 4);
}

// One row of the table: a value of every run, and which way is better (none: not compared).
struct Measure {
    QString name;
    QString tip;
    std::function<double(const RunSummary &)> value;
    int better = 0; // -1 lower, +1 higher
};

} // namespace

RunSummaryTable::RunSummaryTable(QWidget *parent)
    : QTableWidget(parent)
{
    setObjectName(QStringLiteral("runSummary"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    // Narrow run columns (names elided, whole in their tooltips): three runs fit beside the charts.
    horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setDefaultSectionSize(72);
    horizontalHeader()->setTextElideMode(Qt::ElideMiddle);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void RunSummaryTable::setRows(const QList<Row> &rows)
{
    // Runs across, values down: a narrow table beside the charts holds three or four runs.
    const QList<Measure> measures = {
        {tr("Steps"), {}, [](const RunSummary &s) { return s.steps; }},
        {tr("Final loss"), tr("The last train loss"), [](const RunSummary &s) { return s.finalLoss; }, -1},
        {tr("Best loss"), tr("The lowest train loss"), [](const RunSummary &s) { return s.bestLoss; }, -1},
        {tr("Final val"), tr("The last validation loss"), [](const RunSummary &s) { return s.finalValLoss; }, -1},
        {tr("Best val"), tr("The lowest validation loss"), [](const RunSummary &s) { return s.bestValLoss; }, -1},
        {tr("Best val epoch"), {}, [](const RunSummary &s) { return s.bestValLossEpoch; }},
        {tr("Best accuracy"), tr("The highest validation accuracy"), [](const RunSummary &s) { return s.bestAccuracy; },
         1},
    };
    clear();
    setColumnCount(int(rows.size()));
    setRowCount(int(measures.size()));
    for (int column = 0; column < rows.size(); ++column) {
        auto *header = new QTableWidgetItem(rows.at(column).name);
        header->setData(Qt::DecorationRole, rows.at(column).color);
        header->setForeground(rows.at(column).color);
        header->setToolTip(rows.at(column).name);
        setHorizontalHeaderItem(column, header);
    }
    for (int row = 0; row < measures.size(); ++row) {
        const Measure &measure = measures.at(row);
        auto *name = new QTableWidgetItem(measure.name);
        name->setToolTip(measure.tip);
        setVerticalHeaderItem(row, name);
        int best = -1; // the best run of a compared row, in bold
        for (int column = 0; column < rows.size(); ++column) {
            const double value = measure.value(rows.at(column).summary);
            const double bestValue = best < 0 ? 0 : measure.value(rows.at(best).summary);
            if (measure.better != 0 && !std::isnan(value) && (best < 0 || (value - bestValue) * measure.better > 0))
                best = column;
            auto *item = new QTableWidgetItem(number(value));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(row, column, item);
        }
        if (best >= 0 && rows.size() > 1) {
            QFont font = item(row, best)->font();
            font.setBold(true);
            item(row, best)->setFont(font);
        }
    }
}

} // namespace torchdeck
