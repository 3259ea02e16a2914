#include "term/progressprinter.h"

#include "term/termtr.h"

#include <unistd.h>

namespace torchdeck::term {

namespace {
constexpr int barWidth = 30;

QString megabytes(qint64 bytes)
{
    return QString::number(double(bytes) / (1024.0 * 1024.0), 'f', 1);
}
} // namespace

ProgressPrinter::ProgressPrinter(QTextStream &err)
    : m_err(err)
    , m_terminal(::isatty(STDERR_FILENO) == 1)
{
}

ProgressPrinter::~ProgressPrinter()
{
    finish();
}

void ProgressPrinter::endLine()
{
    if (m_lineOpen)
        m_err << '\n';
    m_lineOpen = false;
}

void ProgressPrinter::step(const QString &name, qint64 done, qint64 total, const QString &detail)
{
    const int percent = total > 0 ? int(100 * done / total) : -1;
    if (!m_terminal) {
        // One line per step, and for sized steps one per quarter.
        if (name != m_step || (percent >= 0 && percent / 25 != m_percent / 25))
            m_err << name << (percent >= 0 ? QStringLiteral(" %1%").arg(percent) : QString()) << '\n' << Qt::flush;
        m_step = name;
        m_percent = percent;
        return;
    }
    if (name != m_step)
        endLine();
    m_step = name;
    m_percent = percent;
    QString line = name;
    if (total > 0) {
        const int filled = int(qint64(barWidth) * done / total);
        line = Tr::tr("[%1%2] %3% %4 (%5/%6 MiB)")
                   .arg(QString(filled, u'#'), QString(barWidth - filled, u'.'))
                   .arg(percent, 3)
                   .arg(name, megabytes(done), megabytes(total));
    }
    if (!detail.isEmpty())
        line += QStringLiteral(" ") + detail;
    m_err << "\r\x1b[K" << line << Qt::flush;
    m_lineOpen = true;
}

void ProgressPrinter::output(const QString &text)
{
    m_pending += text;
    qsizetype newline = 0;
    while ((newline = m_pending.indexOf(u'\n')) >= 0) {
        endLine();
        m_err << "  | " << QStringView(m_pending).left(newline) << '\n';
        m_pending.remove(0, newline + 1);
    }
    m_err << Qt::flush;
}

void ProgressPrinter::finish()
{
    if (!m_pending.isEmpty())
        output(QStringLiteral("\n"));
    endLine();
    m_err << Qt::flush;
}

} // namespace torchdeck::term
