#include "core/runs/sweepgrid.h"

#include "core/coretr.h"

#include <QRegularExpression>
#include <QSet>

namespace torchdeck {

using core::Tr;

QString SweepPoint::label() const
{
    QStringList parts;
    for (const auto &[name, value] : values)
        parts.append(name + u'=' + value);
    return parts.join(u' ');
}

std::optional<SweepAxis> parseSweepAxis(const QString &text, QString *error)
{
    static const QRegularExpression option(QStringLiteral("^[a-z][a-z0-9-]*$"));
    static const QRegularExpression variable(QStringLiteral("^env:[A-Za-z_][A-Za-z0-9_]*$"));
    const qsizetype equals = text.indexOf(u'=');
    if (equals < 0) {
        *error = Tr::tr("--vary wants NAME=V1,V2,... (got '%1')").arg(text);
        return std::nullopt;
    }
    SweepAxis axis{text.left(equals), text.mid(equals + 1).split(u',')};
    if (!option.match(axis.name).hasMatch() && !variable.match(axis.name).hasMatch()) {
        *error = Tr::tr("--vary %1: '%2' is no option name (an option without its dashes, as tasks-per-node or lr, or "
                        "env:NAME)")
                     .arg(text, axis.name);
        return std::nullopt;
    }
    QSet<QString> seen;
    for (const QString &value : std::as_const(axis.values)) {
        if (value.trimmed().isEmpty()) {
            *error = Tr::tr("--vary %1: an empty value").arg(text);
            return std::nullopt;
        }
        if (seen.contains(value)) {
            *error = Tr::tr("--vary %1: %2 is given twice").arg(text, value);
            return std::nullopt;
        }
        seen.insert(value);
    }
    return axis;
}

std::optional<QList<SweepPoint>> sweepGrid(const QList<SweepAxis> &axes, int maxPoints, QString *error)
{
    QSet<QString> names;
    qint64 count = 1;
    for (const SweepAxis &axis : axes) {
        if (names.contains(axis.name)) {
            *error = Tr::tr("%1 is varied twice: give all its values in one --vary").arg(axis.name);
            return std::nullopt;
        }
        names.insert(axis.name);
        count *= std::max<qsizetype>(1, axis.values.size());
        if (count > maxPoints) {
            *error = Tr::tr("the grid has more than %1 points: vary fewer settings or fewer values").arg(maxPoints);
            return std::nullopt;
        }
    }
    QList<SweepPoint> points{SweepPoint{}};
    for (const SweepAxis &axis : axes) {
        QList<SweepPoint> next;
        for (const SweepPoint &point : std::as_const(points)) {
            for (const QString &value : axis.values) {
                SweepPoint longer = point;
                longer.values.append({axis.name, value});
                next.append(longer);
            }
        }
        points = next;
    }
    return points;
}

bool isShapeSetting(const QString &name)
{
    static const QSet<QString> shape{QStringLiteral("nodes"),         QStringLiteral("tasks-per-node"),
                                     QStringLiteral("gpus-per-node"), QStringLiteral("cpus-per-task"),
                                     QStringLiteral("threads"),       QStringLiteral("nproc-per-node")};
    return shape.contains(name);
}

} // namespace torchdeck
