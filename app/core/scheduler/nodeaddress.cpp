#include "core/scheduler/nodeaddress.h"

#include <QRegularExpression>

namespace torchdeck {

namespace {

// The first name of a Slurm hostlist: each bracket's first number (zero-padded as written), the first of a
// comma list outside brackets.
QString firstSlurmHost(const QString &list)
{
    QString host;
    int depth = 0;
    qsizetype bracketStart = -1;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QChar c = list.at(i);
        if (c == u'[') {
            ++depth;
            bracketStart = i + 1;
        } else if (c == u']') {
            if (depth == 0 || bracketStart < 0)
                return {};
            --depth;
            // "03-05,9": the first range's first number, as written.
            host += list.mid(bracketStart, i - bracketStart).section(u',', 0, 0).section(u'-', 0, 0);
            bracketStart = -1;
        } else if (depth == 0) {
            if (c == u',' || c.isSpace())
                break;
            host += c;
        }
    }
    return depth == 0 ? host : QString();
}

} // namespace

QString firstNode(SchedulerKind kind, const QString &nodes)
{
    const QString list = nodes.trimmed();
    if (kind == SchedulerKind::Local)
        return QStringLiteral("localhost");
    if (list.isEmpty() || list == u"(null)" || list.startsWith(u"None"))
        return {};
    if (kind == SchedulerKind::Slurm)
        return firstSlurmHost(list);
    return list.section(u',', 0, 0).section(u'/', 0, 0).trimmed();
}

QStringList nodeAddressCommand(SchedulerKind kind, const QString &node)
{
    if (kind != SchedulerKind::Slurm || node.isEmpty())
        return {};
    return {QStringLiteral("scontrol"), QStringLiteral("--oneliner"), QStringLiteral("show"), QStringLiteral("node"),
            node};
}

QString parseSlurmNodeAddress(const QByteArray &output)
{
    static const QRegularExpression nodeAddr(QStringLiteral("(?:^|\\s)NodeAddr=(\\S+)"));
    const QRegularExpressionMatch match = nodeAddr.match(QString::fromUtf8(output));
    return match.hasMatch() ? match.captured(1) : QString();
}

} // namespace torchdeck
