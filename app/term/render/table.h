#pragma once

#include <QList>
#include <QStringList>

namespace torchdeck::term {

struct TableColumn {
    QString header;
    bool alignRight = false; // numbers
    int minWidth = 4;        // cells kept when space is short; past that, columns drop from the right
};

struct Table {
    QList<TableColumn> columns;
    QList<QStringList> rows; // cells are untrusted text: made terminal-safe here
    int selected = -1;       // highlighted in reverse video and kept in view
    QString emptyText;       // shown under the header when there is no row
};

// The header, then as many rows as fit, scrolled so that the selected row shows. Exactly `rows` lines of
// exactly `cols` cells; cells too long end with an ellipsis.
QStringList renderTable(const Table &table, int cols, int rows, bool useColor);
// The first row shown when `visibleRows` rows fit (kept stateless: the selection sits at the bottom edge).
int tableFirstRow(int rowCount, int selected, int visibleRows);

} // namespace torchdeck::term
