#include "core/runs/accountcheck.h"

#include "core/coretr.h"

#include <QRegularExpression>
#include <optional>

namespace torchdeck {

namespace {

const QString fairShareName = QStringLiteral("Fair share");
const QString quotaName = QStringLiteral("Quota");
constexpr double nearlyFull = 0.9;

QString firstLine(const QString &text)
{
    return text.trimmed().section(u'\n', 0, 0);
}

// "120M", "4.5G", "1234" (unit: `plainUnit` bytes) to bytes; nullopt for "-" or what is no size.
std::optional<double> bytesOf(QString text, double plainUnit)
{
    text.remove(u'*'); // over the soft limit
    static const QRegularExpression size(QStringLiteral("^([0-9]+(?:\\.[0-9]+)?)([KMGTP]?)$"));
    const QRegularExpressionMatch match = size.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const double value = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    if (unit.isEmpty())
        return value * plainUnit;
    const int power = int(QStringLiteral("KMGTP").indexOf(unit)) + 1;
    double bytes = value;
    for (int i = 0; i < power; ++i)
        bytes *= 1024;
    return bytes;
}

struct QuotaLine {
    QString filesystem;
    QString used;
    QString quota;
    double fraction = -1; // of the soft limit (else the hard one); -1: no limit
    bool over = false;
};

// One line of `quota -s -w` ("/dev/sda1 120M 1000M 1200M ...", sizes with units) or `lfs quota -q`
// ("/lustre 1234* 1000 2000 - ...", KiB).
std::optional<QuotaLine> quotaLine(const QString &text, double plainUnit)
{
    const QStringList fields = text.simplified().split(u' ');
    if (fields.size() < 4)
        return std::nullopt;
    const auto used = bytesOf(fields.at(1), plainUnit);
    const auto soft = bytesOf(fields.at(2), plainUnit);
    const auto hard = bytesOf(fields.at(3), plainUnit);
    if (!used || !soft || !hard)
        return std::nullopt;
    QuotaLine line{fields.at(0), fields.at(1), fields.at(2)};
    const double limit = *soft > 0 ? *soft : *hard;
    if (limit > 0)
        line.fraction = *used / limit;
    if (*soft <= 0 && *hard > 0)
        line.quota = fields.at(3);
    line.over = fields.at(1).endsWith(u'*') || (limit > 0 && *used >= limit);
    line.used.remove(u'*');
    return line;
}

} // namespace

QString fairShareProbeScript(const QStringList &moduleLines, SchedulerKind scheduler)
{
    if (scheduler != SchedulerKind::Slurm)
        return QStringLiteral("echo none\n");
    return moduleLines.join(u'\n') + QStringLiteral("\ncommand -v sshare >/dev/null || { echo none; exit 0; }\n"
                                                    "sshare --noheader --parsable2 --users=\"$USER\" "
                                                    "--format=Account,User,FairShare\n");
}

CheckItem fairShareItem(int exitCode, const QString &out, const QString &err)
{
    if (exitCode != 0) {
        const QString said = firstLine(err.isEmpty() ? out : err);
        return {fairShareName, true,
                said.isEmpty() ? core::Tr::tr("not reported here (sshare ended with exit code %1)").arg(exitCode)
                               : core::Tr::tr("not reported here: %1").arg(said)};
    }
    if (out.trimmed() == u"none")
        return {fairShareName, true, core::Tr::tr("this scheduler reports none (no sshare)")};
    QStringList accounts;
    double lowest = 2;
    for (const QString &line : out.split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList fields = line.trimmed().split(u'|');
        bool isNumber = false;
        const double share = fields.size() >= 3 ? fields.at(2).toDouble(&isNumber) : 0;
        if (!isNumber || fields.at(1).isEmpty())
            continue; // an account's own line, without a user
        accounts.append(core::Tr::tr("%1 %2").arg(fields.at(0)).arg(share, 0, 'f', 2));
        lowest = std::min(lowest, share);
    }
    if (accounts.isEmpty()) {
        const QString said = firstLine(out + u'\n' + err);
        return {fairShareName, true,
                said.isEmpty() ? core::Tr::tr("sshare reports no fair-share factor for you (no accounting here?)")
                               : core::Tr::tr("not reported here: %1").arg(said)};
    }
    CheckItem item{fairShareName, true,
                   core::Tr::tr("fair-share factor by account: %1 (1: used little lately; near 0: its jobs wait "
                                "behind others)")
                       .arg(accounts.join(QStringLiteral(", ")))};
    item.warning = lowest < 0.1;
    return item;
}

QString quotaProbeScript()
{
    return QStringLiteral("found=0\n"
                          "if command -v quota >/dev/null; then echo '== quota'; quota -s -w 2>&1; found=1; fi\n"
                          "if command -v lfs >/dev/null; then\n"
                          "  for fs in $(df -t lustre --output=target 2>/dev/null | tail -n +2); do\n"
                          "    echo \"== lfs $fs\"; lfs quota -q -u \"$USER\" \"$fs\" 2>&1; found=1\n"
                          "  done\n"
                          "fi\n"
                          "[ \"$found\" = 1 ] || echo none\n"
                          "exit 0\n");
}

CheckItem quotaItem(const QString &out)
{
    if (out.trimmed() == u"none")
        return {quotaName, true, core::Tr::tr("no quota tools here (quota, lfs)")};
    QStringList said;
    bool warning = false;
    constexpr double plainUnit = 1024; // quota's and lfs's plain numbers are KiB
    for (const QString &text : out.split(u'\n', Qt::SkipEmptyParts)) {
        const std::optional<QuotaLine> line = quotaLine(text, plainUnit);
        if (!line || line->fraction < 0)
            continue; // headers, "none", file counts without a space limit
        warning = warning || line->over || line->fraction >= nearlyFull;
        said.append(line->over ? core::Tr::tr("%1: %2 of %3, OVER").arg(line->filesystem, line->used, line->quota)
                               : core::Tr::tr("%1: %2 of %3 (%4%)")
                                     .arg(line->filesystem, line->used, line->quota)
                                     .arg(qRound(line->fraction * 100)));
    }
    if (said.isEmpty())
        return {quotaName, true, core::Tr::tr("no limit set for you")};
    CheckItem item{quotaName, true, said.join(QStringLiteral("; "))};
    item.warning = warning;
    if (warning)
        item.detail += core::Tr::tr(" \u2014 nearly full: a checkpoint that cannot be written ends the run");
    return item;
}

} // namespace torchdeck
