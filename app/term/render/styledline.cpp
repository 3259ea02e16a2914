#include "term/render/styledline.h"

#include "term/render/textwidth.h"

namespace torchdeck::term {

bool StyledLine::add(QStringView text, const TextStyle &style)
{
    if (room() <= 0)
        return text.isEmpty();
    const QString fitted = fitToWidth(text, room());
    const int cells = displayWidth(fitted);
    const bool color = m_useColor && style.color >= 0;
    if (style.bold)
        m_text += ansi::kBold;
    if (style.dim)
        m_text += ansi::kDim;
    if (style.reverse)
        m_text += ansi::kReverse;
    if (color)
        m_text += ansi::color(style.color);
    m_text += fitted;
    if (color)
        m_text += ansi::kDefaultColor;
    if (style.reverse)
        m_text += ansi::kNoReverse;
    if (style.bold || style.dim)
        m_text += ansi::kNormalIntensity;
    m_used += cells;
    return fitted.size() == text.size();
}

void StyledLine::addSpaces(int count, const TextStyle &style)
{
    if (count > 0)
        add(QString(std::min(count, room()), u' '), style);
}

void StyledLine::addRendered(const QString &text, int cells)
{
    if (cells > room())
        return; // a pre-rendered piece cannot be cut safely: the caller sized it
    m_text += text;
    m_used += cells;
}

QString StyledLine::finish() const
{
    return room() > 0 ? QString(m_text + QString(room(), u' ')) : m_text;
}

} // namespace torchdeck::term
