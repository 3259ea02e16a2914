#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace torchdeck {

// Cuts a byte stream that arrives in arbitrary chunks into complete lines. A torn last line waits for its
// newline, so a tail that stops mid-line and resumes at offset() neither loses nor repeats a line.
class LineAssembler {
public:
    explicit LineAssembler(qint64 offset = 0)
        : m_offset(offset)
    {
    }

    void append(QByteArrayView chunk);

    // The next complete line, without "\n" or "\r\n". The view stays valid until the next append().
    bool nextLine(QByteArrayView *line);

    // Every complete line buffered now, copied.
    QList<QByteArray> takeLines();

    // The bytes of a torn last line, taken as a line: for a stream known to be finished.
    QByteArray takePartial();

    // File offset of the first byte not yet returned in a line: where a tail resumes.
    qint64 offset() const { return m_offset; }
    qsizetype pendingBytes() const { return m_buffer.size() - m_pos; }

    // Start over at `offset` (the file was truncated or replaced).
    void reset(qint64 offset = 0);

private:
    QByteArray m_buffer;
    qsizetype m_pos = 0;  // first byte of m_buffer not returned yet
    qsizetype m_scan = 0; // bytes before this hold no newline
    qint64 m_offset = 0;
};

} // namespace torchdeck
