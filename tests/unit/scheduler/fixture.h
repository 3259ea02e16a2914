#pragma once

#include "core/scheduler/jobinfo.h"

#include <QFile>
#include <QTest>

// Shared by the scheduler parser tests: captured outputs live in tests/data/scheduler.
namespace torchdeck::testing {

inline QByteArray fixture(const QString &name)
{
    QFile file(QStringLiteral(TORCHDECK_TEST_DATA "/scheduler/") + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Tests find jobs by name: ids change with every capture.
inline const JobInfo *jobNamed(const JobListResult &result, const QString &name)
{
    for (const JobInfo &job : result.jobs) {
        if (job.name == name)
            return &job;
    }
    return nullptr;
}

} // namespace torchdeck::testing

namespace torchdeck {

// QCOMPARE prints a JobState by its name.
inline char *toString(JobState state)
{
    return qstrdup(jobStateName(state).toUtf8().constData());
}

} // namespace torchdeck
