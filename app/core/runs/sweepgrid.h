#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>
#include <utility>

namespace torchdeck {

// One varied setting of a sweep, `--vary NAME=V1,V2,...`: NAME is a job option without its dashes
// ("tasks-per-node", "nodes"), a trainer option ("lr") or "env:NAME" for a custom command's variable.
struct SweepAxis {
    QString name;
    QStringList values;
};

// One point of a sweep's grid: a value for every axis, in the axes' order.
struct SweepPoint {
    QList<std::pair<QString, QString>> values; // name, value

    QString label() const; // "nodes=2 tasks-per-node=1"
};

// NAME=V1,V2,...; none, with the reason in *error, when the name is no option's (a word, or env: and a variable
// name), a value is empty or repeated, or there is no '='.
std::optional<SweepAxis> parseSweepAxis(const QString &text, QString *error);

// Every combination of the axes' values, the first axis varying slowest; none (error) when a name is varied
// twice or the grid holds more than maxPoints points.
std::optional<QList<SweepPoint>> sweepGrid(const QList<SweepAxis> &axes, int maxPoints, QString *error);

// The settings a scaling study varies: the job's shape. A sweep that varies only these is a scaling sweep (its
// table compares speed), any other a hyperparameter sweep (its table compares losses).
bool isShapeSetting(const QString &name);

} // namespace torchdeck
