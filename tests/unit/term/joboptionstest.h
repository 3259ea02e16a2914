#pragma once

// What the tests of parseJobOptions share: the cluster they name, argument lists from text, the spec of
// "hpc" alone.
#include "term/joboptions.h"

#include <QJsonDocument>
#include <QStringList>

Q_DECLARE_METATYPE(torchdeck::JobSpec)

namespace torchdeck::term::testing {

inline const QString cluster = QStringLiteral("hpc");

inline QStringList words(const char *text)
{
    return QString::fromUtf8(text).split(u' ', Qt::SkipEmptyParts);
}

// What parseJobOptions gives for "hpc" and nothing else.
inline JobSpec plain()
{
    JobSpec spec;
    spec.name = QStringLiteral("torchdeck-job");
    return spec;
}

inline QByteArray json(const JobSpec &spec)
{
    return QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact);
}

inline JobOptions parse(const QStringList &args)
{
    return parseJobOptions(QStringList{cluster} + args);
}

} // namespace torchdeck::term::testing
