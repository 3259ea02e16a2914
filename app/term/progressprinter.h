#pragma once

#include <QString>
#include <QTextStream>

namespace torchdeck::term {

// Long work shown on stderr: on a terminal one line redrawn in place with a bar for steps that know their
// size; elsewhere (a log, a pipe) one line per step, no control characters.
class ProgressPrinter {
public:
    explicit ProgressPrinter(QTextStream &err);
    ~ProgressPrinter();

    // `detail` (a rate, the time left) is shown beside the bar on a terminal; it never makes a new line elsewhere.
    void step(const QString &name, qint64 done, qint64 total, const QString &detail = {});
    // Text of a stream (a build's output), each line prefixed, after the current step's line.
    void output(const QString &text);
    void finish(); // ends the in-place line

private:
    void endLine();

    QTextStream &m_err;
    bool m_terminal;
    bool m_lineOpen = false;
    QString m_step;
    int m_percent = -1;
    QString m_pending; // output text without its newline yet
};

} // namespace torchdeck::term
