#include "core/scheduler/submitreply.h"

#include "core/coretr.h"
#include "core/scheduler/schedulertext.h"

#include <QRegularExpression>

namespace torchdeck {

using namespace schedulertext;

namespace {

SubmitResult noId(const QByteArray &output, const QString &what)
{
    if (output.trimmed().isEmpty())
        return {{}, {}, core::Tr::tr("empty reply from %1").arg(what)};
    const QString last = nonBlankLines(output).constLast().text.trimmed();
    return {{}, {}, core::Tr::tr("no job id in %1's reply: '%2'").arg(what, last.left(200))};
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
    return noId(output, QStringLiteral("sbatch"));
}

SubmitResult parseQsubReply(const QByteArray &output)
{
    const QList<Line> lines = nonBlankLines(output);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString text = it->text.trimmed();
        if (isPbsJobId(text))
            return {text, {}, {}};
    }
    return noId(output, QStringLiteral("qsub"));
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
    return noId(output, core::Tr::tr("the local launcher"));
}

} // namespace torchdeck
