#pragma once

#include "term/render/ansi.h"

#include <QString>
#include <algorithm>

namespace torchdeck::term {

struct TextStyle {
    int color = ansi::kNoColor;
    bool bold = false;
    bool dim = false;
    bool reverse = false;
};

// Builds one screen line of exactly `width` cells from styled pieces: pieces past the width are cut with an
// ellipsis, every style is closed before the end of the line. Colours only when useColor; bold, dim and
// reverse always (a selection must stay visible without colours).
class StyledLine {
public:
    StyledLine(int width, bool useColor)
        : m_width(std::max(width, 0))
        , m_useColor(useColor)
    {
    }

    int width() const { return m_width; }
    int used() const { return m_used; }
    int room() const { return m_width - m_used; }

    // Plain, terminal-safe text; returns false when it had to be cut.
    bool add(QStringView text, const TextStyle &style = {});
    void addSpaces(int count, const TextStyle &style = {});
    // A piece already rendered to `cells` cells with its own closed styles (a canvas row, another line).
    void addRendered(const QString &text, int cells);
    // The line padded with spaces to the full width.
    QString finish() const;

private:
    int m_width;
    bool m_useColor;
    int m_used = 0;
    QString m_text;
};

} // namespace torchdeck::term
