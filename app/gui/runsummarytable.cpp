#include "gui/runsummarytable.h"

#include <QHeaderView>
#include <QPainter>
#include <QPixmap>
#include <QScrollBar>
#include <cmath>
#include <functional>

namespace torchdeck {

namespace {

constexpr int mostRowsShown = 6; // beyond that the table scrolls rather than take the charts' room

QString number(double value)
{
    return std::isnan(value) ? QStringLiteral("-") : QString::number(value, 'g', 4);
}

// A column of the table: a value of every run, and which way is better (none: not compared).
struct Measure {
    QString name;
    QString tip;
    std::function<double(const RunSummary &)> value;
    int better = 0; // -1 lower, +1 higher
};

// The legend's sample of a run's curve, drawn as the charts draw it.
QPixmap lineSample(const QColor &color, bool dashed, qreal ratio)
{
    QPixmap pixmap(QSize(28, 12) * ratio);
    pixmap.setDevicePixelRatio(ratio);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(color, 2, dashed ? Qt::DashLine : Qt::SolidLine));
    painter.drawLine(QPointF(1, 6), QPointF(27, 6));
    return pixmap;
}

} // namespace

RunSummaryTable::RunSummaryTable(QWidget *parent)
    : QTableWidget(parent)
{
    setObjectName(QStringLiteral("runSummary"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setIconSize(QSize(28, 12));
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents); // whole names, whole headers
    verticalHeader()->hide();
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void RunSummaryTable::setRows(const QList<Row> &rows)
{
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
    setRowCount(int(rows.size()));
    setColumnCount(int(measures.size()) + 1);
    auto *runHeader = new QTableWidgetItem(tr("Run"));
    runHeader->setToolTip(tr("Solid: the shown run; dashed: the runs compared with it (train loss by step, val loss "
                             "by epoch)"));
    setHorizontalHeaderItem(0, runHeader);
    for (int row = 0; row < rows.size(); ++row) {
        const Row &run = rows.at(row);
        auto *name = new QTableWidgetItem(QIcon(lineSample(run.color, run.dashed, devicePixelRatioF())), run.name);
        name->setToolTip(run.name);
        setItem(row, 0, name);
    }
    for (int measureIndex = 0; measureIndex < measures.size(); ++measureIndex) {
        const Measure &measure = measures.at(measureIndex);
        const int column = measureIndex + 1;
        auto *header = new QTableWidgetItem(measure.name);
        header->setToolTip(measure.tip);
        setHorizontalHeaderItem(column, header);
        int best = -1; // the best run of a compared column, in bold
        for (int row = 0; row < rows.size(); ++row) {
            const double value = measure.value(rows.at(row).summary);
            const double bestValue = best < 0 ? 0 : measure.value(rows.at(best).summary);
            if (measure.better != 0 && !std::isnan(value) && (best < 0 || (value - bestValue) * measure.better > 0))
                best = row;
            auto *item = new QTableWidgetItem(number(value));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(row, column, item);
        }
        if (best >= 0 && rows.size() > 1) {
            QFont font = item(best, column)->font();
            font.setBold(true);
            item(best, column)->setFont(font);
        }
    }
    fitHeight();
}

void RunSummaryTable::fitHeight()
{
    int height = horizontalHeader()->sizeHint().height() + 2 * frameWidth();
    for (int row = 0; row < std::min(rowCount(), mostRowsShown); ++row)
        height += rowHeight(row);
    if (horizontalScrollBar()->isVisible() || horizontalHeader()->length() > viewport()->width())
        height += horizontalScrollBar()->sizeHint().height();
    setFixedHeight(height);
}

} // namespace torchdeck
