#include "core/scheduler/qstatfullparser.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

namespace torchdeck {

using namespace schedulertext;

namespace {

class FullReader {
public:
    explicit FullReader(PbsDialect dialect)
        : m_dialect(dialect)
    {
    }

    void readLine(const Line &line)
    {
        const QString &text = line.text;
        if (text.startsWith(QStringLiteral("Job Id:"))) {
            finishJob();
            startJob(line, text.mid(7).trimmed());
            return;
        }
        if (m_skipping)
            return;
        if (m_id.isEmpty()) {
            m_result.errors.append(core::Tr::tr("line %1: attribute before any 'Job Id:' line").arg(line.number));
            return;
        }
        const QString indent = leadingSpace(text);
        const qsizetype equals = text.indexOf(QStringLiteral(" = "));
        if (m_indent.isEmpty() && !indent.isEmpty() && equals > 0)
            m_indent = indent;
        if (indent == m_indent && equals > 0) {
            m_key = text.left(equals).trimmed().toLower();
            m_attributes.insert(m_key, text.mid(equals + 3).trimmed());
        } else if (indent != m_indent && !m_key.isEmpty() && !indent.isEmpty()) {
            // A wrapped value goes on after one tab, without a separator (it may start with a space).
            m_attributes[m_key] += text.startsWith(u'\t') ? text.mid(1) : text.mid(indent.size());
        } else {
            m_result.errors.append(
                core::Tr::tr("line %1: not 'name = value' in job %2: '%3'").arg(line.number).arg(m_id, text.left(60)));
        }
    }

    JobListResult take()
    {
        finishJob();
        return std::move(m_result);
    }

private:
    static QString leadingSpace(const QString &text)
    {
        qsizetype i = 0;
        while (i < text.size() && (text.at(i) == u' ' || text.at(i) == u'\t'))
            ++i;
        return text.left(i);
    }

    void startJob(const Line &line, const QString &id)
    {
        m_skipping = !isPbsJobId(id);
        if (m_skipping)
            m_result.errors.append(core::Tr::tr("line %1: '%2' is not a PBS job id").arg(line.number).arg(id.left(40)));
        m_id = m_skipping ? QString() : id;
        m_line = line.number;
        m_indent.clear();
        m_key.clear();
        m_attributes.clear();
    }

    void finishJob()
    {
        if (m_id.isEmpty())
            return;
        if (!m_attributes.contains(QStringLiteral("job_state")))
            m_result.errors.append(core::Tr::tr("line %1: job %2 has no job_state").arg(m_line).arg(m_id));
        else
            m_result.jobs.append(pbsJobFromAttributes(m_id, m_attributes, m_dialect));
        m_id.clear();
    }

    PbsDialect m_dialect;
    JobListResult m_result;
    QString m_id;
    int m_line = 0;
    bool m_skipping = false;
    QString m_indent;
    QString m_key;
    QHash<QString, QString> m_attributes;
};

} // namespace

JobListResult parseQstatFull(const QByteArray &output, PbsDialect dialect)
{
    FullReader reader(dialect);
    for (const Line &line : nonBlankLines(output))
        reader.readLine(line);
    return reader.take();
}

} // namespace torchdeck
