#pragma once

#include "term/render/ansi.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace torchdeck::term {

// A cols x rows character grid drawn with braille dots: 2 x 4 dots a cell (U+2800..U+28FF), dot (0, 0) at
// the top left. Each cell has one colour and one intensity (faint or normal: the last dot set wins) and may
// hold a text character instead of dots. Coordinates outside the grid are clipped, never an error.
class BrailleCanvas {
public:
    BrailleCanvas(int cols, int rows);

    int cols() const { return m_cols; }
    int rows() const { return m_rows; }
    int dotWidth() const { return m_cols * 2; }
    int dotHeight() const { return m_rows * 4; }

    void set(int x, int y, int color = ansi::kNoColor, bool faint = false);
    bool isSet(int x, int y) const;
    // A straight line of dots, both ends included (Bresenham).
    void line(int x0, int y0, int x1, int y1, int color = ansi::kNoColor, bool faint = false);
    void setCellColor(int col, int row, int color);
    // Text over the dots from cell (col, row); characters wider than one cell become '?'.
    void text(int col, int row, QStringView text, int color = ansi::kNoColor, bool faint = false);
    // Neither a dot nor text in the cell (outside the grid: false).
    bool isBlank(int col, int row) const;

    // One row, exactly cols() cells, with colour sequences when useColor; faint cells are dim either way.
    QString row(int row, bool useColor) const;
    QStringList lines(bool useColor) const;

private:
    int cellIndex(int col, int row) const { return row * m_cols + col; }

    int m_cols;
    int m_rows;
    QList<quint8> m_dots;      // braille bits a cell
    QList<qint16> m_colors;    // ansi::kNoColor or 0..255
    QList<char32_t> m_overlay; // 0: dots
    QList<bool> m_faint;
};

} // namespace torchdeck::term
