#include "core/metrics/lineassembler.h"

#include <cstring>

namespace torchdeck {

void LineAssembler::append(QByteArrayView chunk)
{
    if (chunk.isEmpty())
        return;
    if (m_pos > 0) {
        // Drop consumed bytes before growing; views handed out before are invalid from here on.
        m_buffer.remove(0, m_pos);
        m_scan -= m_pos;
        m_pos = 0;
    }
    m_buffer.append(chunk.data(), chunk.size());
}

bool LineAssembler::nextLine(QByteArrayView *line)
{
    const qsizetype size = m_buffer.size();
    const char *data = m_buffer.constData();
    const qsizetype from = qMax(m_pos, m_scan);
    const void *hit = from < size ? std::memchr(data + from, '\n', static_cast<size_t>(size - from)) : nullptr;
    if (hit == nullptr) {
        m_scan = size;
        return false;
    }
    const qsizetype newline = static_cast<const char *>(hit) - data;
    qsizetype end = newline;
    if (end > m_pos && data[end - 1] == '\r')
        --end;
    *line = QByteArrayView(data + m_pos, end - m_pos);
    m_offset += newline + 1 - m_pos;
    m_pos = newline + 1;
    m_scan = m_pos;
    return true;
}

QList<QByteArray> LineAssembler::takeLines()
{
    QList<QByteArray> lines;
    QByteArrayView line;
    while (nextLine(&line))
        lines.append(line.toByteArray());
    return lines;
}

QByteArray LineAssembler::takePartial()
{
    QByteArray rest = m_buffer.mid(m_pos);
    m_offset += rest.size();
    m_buffer.clear();
    m_pos = m_scan = 0;
    if (rest.endsWith('\r'))
        rest.chop(1);
    return rest;
}

void LineAssembler::reset(qint64 offset)
{
    m_buffer.clear();
    m_pos = m_scan = 0;
    m_offset = offset;
}

} // namespace torchdeck
