#include "term/render/textwidth.h"

#include <QChar>
#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

namespace torchdeck::term {

namespace {

constexpr char16_t kEscape = 0x1b;
constexpr QChar kEllipsis = QChar(0x2026);

// East Asian Wide and Fullwidth blocks, and the emoji planes (as wcwidth() reports them).
constexpr std::array<std::pair<char32_t, char32_t>, 14> kWide = {{
    {0x1100, 0x115F},
    {0x231A, 0x231B},
    {0x2E80, 0x303E},
    {0x3041, 0x33FF},
    {0x3400, 0x4DBF},
    {0x4E00, 0x9FFF},
    {0xA000, 0xA4CF},
    {0xAC00, 0xD7A3},
    {0xF900, 0xFAFF},
    {0xFE30, 0xFE4F},
    {0xFF00, 0xFF60},
    {0xFFE0, 0xFFE6},
    {0x1F300, 0x1FAFF},
    {0x20000, 0x3FFFD},
}};

// Length of the escape sequence starting at `i` (ESC), 1 when it is a lone ESC.
qsizetype escapeLength(QStringView text, qsizetype i)
{
    if (i + 1 >= text.size())
        return 1;
    const char16_t kind = text[i + 1].unicode();
    qsizetype j = i + 2;
    if (kind == u'[') { // CSI: parameters and intermediates, then a final byte 0x40..0x7e
        while (j < text.size() && (text[j].unicode() < 0x40 || text[j].unicode() > 0x7e))
            ++j;
        return std::min(j + 1, text.size()) - i;
    }
    if (kind == u']') { // OSC: up to BEL or ESC backslash
        while (j < text.size() && text[j].unicode() != 0x07 && text[j].unicode() != kEscape)
            ++j;
        if (j < text.size() && text[j].unicode() == kEscape)
            ++j;
        return std::min(j + 1, text.size()) - i;
    }
    return 2; // ESC and one character
}

bool isControl(char32_t c)
{
    return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

// Bidirectional overrides would reorder what follows them on the line.
bool isBidiControl(char32_t c)
{
    return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

// The code point at `*i`, moving `*i` past it (a lone surrogate reads as itself).
char32_t nextCodePoint(QStringView text, qsizetype *i)
{
    const QChar c = text[*i];
    ++*i;
    if (c.isHighSurrogate() && *i < text.size() && text[*i].isLowSurrogate())
        return QChar::surrogateToUcs4(c, text[(*i)++]);
    return c.unicode();
}

} // namespace

int charWidth(char32_t c)
{
    if (c < 0x7f)
        return c >= 0x20 ? 1 : 0;
    if (isControl(c))
        return 0;
    switch (QChar::category(c)) {
    case QChar::Mark_NonSpacing:
    case QChar::Mark_Enclosing:
    case QChar::Other_Format:
        return 0;
    default:
        break;
    }
    const auto it = std::upper_bound(kWide.cbegin(), kWide.cend(), c,
                                     [](char32_t v, const auto &range) { return v < range.first; });
    return it != kWide.cbegin() && c <= std::prev(it)->second ? 2 : 1;
}

int displayWidth(QStringView text)
{
    int width = 0;
    qsizetype i = 0;
    while (i < text.size()) {
        const char16_t u = text[i].unicode();
        if (u == kEscape) {
            i += escapeLength(text, i);
        } else if (u < 0x80) {
            width += u >= 0x20 && u < 0x7f ? 1 : 0;
            ++i;
        } else {
            width += charWidth(nextCodePoint(text, &i));
        }
    }
    return width;
}

QString terminalSafe(QStringView text)
{
    QString out;
    out.reserve(text.size());
    qsizetype i = 0;
    while (i < text.size()) {
        const char16_t u = text[i].unicode();
        if (u == kEscape) {
            i += escapeLength(text, i);
            continue;
        }
        const qsizetype start = i;
        const char32_t c = nextCodePoint(text, &i);
        if (c == u'\t' || c == u'\n' || c == u'\r')
            out.append(u' ');
        else if (isControl(c))
            out.append(u'?');
        else if (!isBidiControl(c))
            out.append(text.sliced(start, i - start));
    }
    return out;
}

QString stripAnsi(QStringView text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size();) {
        if (text[i].unicode() == kEscape) {
            i += escapeLength(text, i);
        } else {
            out.append(text[i]);
            ++i;
        }
    }
    return out;
}

QString fitToWidth(QStringView text, int width)
{
    if (width <= 0)
        return {};
    if (displayWidth(text) <= width)
        return text.toString();
    // Keep whole code points up to width - 1 cells, then the ellipsis.
    int used = 0;
    qsizetype end = 0;
    while (end < text.size()) {
        qsizetype next = end;
        const int w = charWidth(nextCodePoint(text, &next));
        if (used + w > width - 1)
            break;
        used += w;
        end = next;
    }
    QString out = text.first(end).toString();
    out.append(kEllipsis);
    return out;
}

QString padRight(QStringView text, int width)
{
    QString out = fitToWidth(text, width);
    const int w = displayWidth(out);
    if (w < width)
        out.append(QString(width - w, u' '));
    return out;
}

QString padLeft(QStringView text, int width)
{
    QString out = fitToWidth(text, width);
    const int w = displayWidth(out);
    return w < width ? QString(width - w, u' ') + out : out;
}

} // namespace torchdeck::term
