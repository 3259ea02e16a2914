#include "core/scheduler/submitreply.h"

#include "core/scheduler/schedulertext.h"

#include <QRegularExpression>

namespace torchdeck {

using namespace schedulertext;

namespace {

SubmitResult noId(const QByteArray &output, const char16_t *what)
{
    if (output.trimmed().isEmpty())
        return {{}, {}, QStringLiteral("empty reply from %1").arg(QString::fromUtf16(what))};
    const QString last = nonBlankLines(output).constLast().text.trimmed();
    return {{}, {}, QStringLiteral("no job id in %1's reply: '%2'").arg(QString::fromUtf16(what), last.left(200))};
}

} // namespace

SubmitResult parseSbatchReply(const QByteArray &output)
{
    static const QRegularExpression plain(QStringLiteral(R"(^Submitted batch job (\d+)(?: on cluster (\S+))?\s*$)"));
    const QList<Line> lines = nonBlankLines(output);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString text = it->text.trimmed();
        const QRegularExpressionMatch match = plain.match(text);
        if (match.hasMatch())
            return {match.captured(1), match.captured(2), {}};
        const QString id = text.section(u';', 0, 0);
        if (isSlurmJobId(id))
            return {id, text.contains(u';') ? text.section(u';', 1) : QString(), {}};
    }
    return noId(output, u"sbatch");
}

SubmitResult parseQsubReply(const QByteArray &output)
{
    const QList<Line> lines = nonBlankLines(output);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString text = it->text.trimmed();
        if (isPbsJobId(text))
            return {text, {}, {}};
    }
    return noId(output, u"qsub");
}

SubmitResult parseLocalReply(const QByteArray &output)
{
    const QList<Line> lines = nonBlankLines(output);
    if (!lines.isEmpty()) {
        const QString text = lines.constLast().text.trimmed();
        bool ok = false;
        if (text.toLongLong(&ok) > 0 && ok)
            return {text, {}, {}};
    }
    return noId(output, u"the local launcher");
}

} // namespace torchdeck
