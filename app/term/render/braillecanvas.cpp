#include "term/render/braillecanvas.h"

#include "term/render/textwidth.h"

#include <algorithm>
#include <cstdlib>

namespace torchdeck::term {

namespace {

constexpr char32_t kBrailleBlank = 0x2800;

// Bit of dot (dx, dy) inside a cell: the left column is dots 1, 2, 3, 7, the right one 4, 5, 6, 8.
constexpr quint8 kDotBits[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};

} // namespace

BrailleCanvas::BrailleCanvas(int cols, int rows)
    : m_cols(std::max(cols, 0))
    , m_rows(std::max(rows, 0))
    , m_dots(qsizetype(m_cols) * m_rows, 0)
    , m_colors(qsizetype(m_cols) * m_rows, qint16(ansi::kNoColor))
    , m_overlay(qsizetype(m_cols) * m_rows, 0)
    , m_faint(qsizetype(m_cols) * m_rows, false)
{
}

void BrailleCanvas::set(int x, int y, int color, bool faint)
{
    if (x < 0 || y < 0 || x >= dotWidth() || y >= dotHeight())
        return;
    const int cell = cellIndex(x / 2, y / 4);
    m_dots[cell] |= kDotBits[y % 4][x % 2];
    if (color >= 0)
        m_colors[cell] = qint16(color);
    m_faint[cell] = faint;
}

bool BrailleCanvas::isSet(int x, int y) const
{
    if (x < 0 || y < 0 || x >= dotWidth() || y >= dotHeight())
        return false;
    return m_dots[cellIndex(x / 2, y / 4)] & kDotBits[y % 4][x % 2];
}

void BrailleCanvas::line(int x0, int y0, int x1, int y1, int color, bool faint)
{
    // Clip far-away ends first so that a wild coordinate cannot make the walk long.
    const int limit = 4 * (dotWidth() + dotHeight()) + 8;
    if (std::abs(x0) > limit || std::abs(x1) > limit || std::abs(y0) > limit || std::abs(y1) > limit) {
        const auto clampTo = [limit](int v) { return std::clamp(v, -limit, limit); };
        x0 = clampTo(x0), x1 = clampTo(x1), y0 = clampTo(y0), y1 = clampTo(y1);
    }
    const int dx = std::abs(x1 - x0);
    const int dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1;
    const int sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    while (true) {
        set(x0, y0, color, faint);
        if (x0 == x1 && y0 == y1)
            break;
        const int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

void BrailleCanvas::setCellColor(int col, int row, int color)
{
    if (col >= 0 && row >= 0 && col < m_cols && row < m_rows)
        m_colors[cellIndex(col, row)] = qint16(color);
}

void BrailleCanvas::text(int col, int row, QStringView text, int color, bool faint)
{
    if (row < 0 || row >= m_rows)
        return;
    for (const char32_t c : text.toUcs4()) {
        const int w = charWidth(c);
        if (w == 0)
            continue;
        if (col >= 0 && col < m_cols) {
            m_overlay[cellIndex(col, row)] = w == 1 ? c : U'?';
            m_colors[cellIndex(col, row)] = qint16(color);
            m_faint[cellIndex(col, row)] = faint;
        }
        ++col;
    }
}

bool BrailleCanvas::isBlank(int col, int row) const
{
    if (col < 0 || row < 0 || col >= m_cols || row >= m_rows)
        return false;
    const int cell = cellIndex(col, row);
    return m_overlay[cell] == 0 && m_dots[cell] == 0;
}

QString BrailleCanvas::row(int row, bool useColor) const
{
    QString out;
    if (row < 0 || row >= m_rows)
        return out;
    out.reserve(qsizetype(m_cols) * 2);
    int current = ansi::kNoColor;
    bool faint = false;
    for (int col = 0; col < m_cols; ++col) {
        const int cell = cellIndex(col, row);
        const char32_t overlay = m_overlay[cell];
        const bool blank = overlay == 0 && m_dots[cell] == 0;
        const int color = blank ? current : m_colors[cell]; // blanks keep the running style: fewer codes
        if (!blank && m_faint[cell] != faint) {
            faint = m_faint[cell];
            out += faint ? ansi::kDim : ansi::kNormalIntensity;
        }
        if (useColor && color != current) {
            out += ansi::color(color);
            current = color;
        }
        const char32_t c = overlay ? overlay : kBrailleBlank + m_dots[cell];
        if (blank)
            out += u' ';
        else if (QChar::requiresSurrogates(c))
            out += QString::fromUcs4(&c, 1);
        else
            out += QChar(char16_t(c));
    }
    if (useColor && current != ansi::kNoColor)
        out += ansi::kDefaultColor;
    if (faint)
        out += ansi::kNormalIntensity;
    return out;
}

QStringList BrailleCanvas::lines(bool useColor) const
{
    QStringList out;
    out.reserve(m_rows);
    for (int r = 0; r < m_rows; ++r)
        out.append(row(r, useColor));
    return out;
}

} // namespace torchdeck::term
