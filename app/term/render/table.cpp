#include "term/render/table.h"

#include "term/render/styledline.h"
#include "term/render/textwidth.h"

#include <algorithm>
#include <numeric>

namespace torchdeck::term {

namespace {

int totalWidth(const QList<int> &widths, int gap)
{
    return std::accumulate(widths.cbegin(), widths.cend(), 0) + gap * int(std::max<qsizetype>(0, widths.size() - 1));
}

// Natural widths shrunk, widest first, to fit `cols`; columns that cannot shrink further are dropped from the
// right. The result may be shorter than the columns.
QList<int> fitWidths(const Table &table, const QList<QStringList> &cells, int cols, int *gap)
{
    QList<int> widths;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        int w = displayWidth(table.columns[c].header);
        for (const QStringList &row : cells)
            w = std::max(w, displayWidth(row.value(c)));
        widths.append(w);
    }
    *gap = totalWidth(widths, 2) <= cols ? 2 : 1;
    while (!widths.isEmpty() && totalWidth(widths, *gap) > cols) {
        int widest = -1;
        for (int c = 0; c < int(widths.size()); ++c) {
            const int spare = widths[c] - std::min(widths[c], table.columns[c].minWidth);
            if (spare > 0 && (widest < 0 || widths[c] >= widths[widest]))
                widest = c;
        }
        if (widest < 0)
            widths.removeLast();
        else
            --widths[widest];
    }
    return widths;
}

} // namespace

int tableFirstRow(int rowCount, int selected, int visibleRows)
{
    if (visibleRows <= 0 || rowCount <= visibleRows)
        return 0;
    const int first = selected >= visibleRows ? selected - visibleRows + 1 : 0;
    return std::clamp(first, 0, rowCount - visibleRows);
}

QStringList renderTable(const Table &table, int cols, int rows, bool useColor)
{
    cols = std::max(cols, 0);
    QStringList out;
    if (rows <= 0)
        return out;
    QList<QStringList> cells;
    cells.reserve(table.rows.size());
    for (const QStringList &row : table.rows) {
        QStringList safe;
        for (const QString &cell : row)
            safe.append(terminalSafe(cell));
        cells.append(safe);
    }
    int gap = 2;
    const QList<int> widths = fitWidths(table, cells, cols, &gap);

    const auto renderRow = [&](const QStringList &row, const TextStyle &style) {
        StyledLine line(cols, useColor);
        for (int c = 0; c < int(widths.size()); ++c) {
            if (c > 0)
                line.addSpaces(gap, style);
            const QString cell = row.value(c);
            line.add(table.columns[c].alignRight ? padLeft(cell, widths[c]) : padRight(cell, widths[c]), style);
        }
        line.addSpaces(line.room(), style);
        return line.finish();
    };

    QStringList headers;
    for (const TableColumn &column : table.columns)
        headers.append(terminalSafe(column.header));
    out.append(renderRow(headers, {ansi::kNoColor, true}));

    const int visible = rows - 1;
    const int rowCount = int(cells.size());
    if (rowCount == 0 && visible > 0) {
        StyledLine line(cols, useColor);
        line.add(terminalSafe(table.emptyText), {ansi::kNoColor, false, true});
        out.append(line.finish());
    }
    const int first = tableFirstRow(rowCount, table.selected, visible);
    for (int r = first; r < rowCount && r < first + visible; ++r) {
        TextStyle style;
        style.reverse = r == table.selected;
        out.append(renderRow(cells[r], style));
    }
    while (out.size() < rows)
        out.append(QString(cols, u' '));
    return out;
}

} // namespace torchdeck::term
