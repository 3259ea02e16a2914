#pragma once

#include "core/scheduler/jobinfo.h"

#include <QFile>
#include <QTest>

Q_DECLARE_METATYPE(torchdeck::JobState)

namespace torchdeck {

// QCOMPARE prints a JobState by its name.
inline char *toString(JobState state)
{
    return qstrdup(jobStateName(state).toUtf8().constData());
}

} // namespace torchdeck

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

// Parses the captures <report>-active.txt (jobs in the queue) and <report>-final.txt (the same jobs ended)
// with `parse`; both must parse without an error.
template <typename Parse>
void parseActiveAndFinal(Parse parse, const QString &report, JobListResult *active, JobListResult *ended)
{
    *active = parse(fixture(report + QStringLiteral("-active.txt")));
    *ended = parse(fixture(report + QStringLiteral("-final.txt")));
    QVERIFY2(active->ok(), qPrintable(active->errorString()));
    QVERIFY2(ended->ok(), qPrintable(ended->errorString()));
}

// A table of jobs still in the queue: each row names a job and the state and reason the report gives it.
inline void addQueuedJobColumns()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<JobState>("state");
    QTest::addColumn<QString>("reason");
}

// Checks the job the current row of an addQueuedJobColumns() table names: in `result`, with the row's state
// and reason. Returns it, or null after a failure.
inline const JobInfo *verifyQueuedJob(const JobListResult &result)
{
    QFETCH(QString, name);
    QFETCH(JobState, state);
    QFETCH(QString, reason);
    const JobInfo *job = jobNamed(result, name);
    [&] {
        QVERIFY2(job, qPrintable(name));
        QCOMPARE(job->state, state);
        QCOMPARE(job->reason, reason);
    }();
    return QTest::currentTestFailed() ? nullptr : job;
}

// A table of ended jobs: each row names a job and the state, exit code and signal it ended with.
inline void addEndedJobColumns()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<JobState>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("signal");
}

// The rows every Slurm report of the captured jobs has. `stopSignal`: the signal of the cancelled and the
// timed-out job, where the report keeps it (15), or 0.
inline void addSlurmEndedJobRows(int stopSignal)
{
    QTest::addRow("completed") << QStringLiteral("td-completed") << JobState::Completed << 0 << 0;
    QTest::addRow("failed") << QStringLiteral("td-failed") << JobState::Failed << 3 << 0;
    QTest::addRow("killed") << QStringLiteral("td-signal") << JobState::Failed << 0 << 9;
    QTest::addRow("cancelled") << QStringLiteral("td-cancelled") << JobState::Cancelled << 0 << stopSignal;
    QTest::addRow("timeout") << QStringLiteral("td-timeout") << JobState::Timeout << 0 << stopSignal;
}

// Checks the job the current row of an addEndedJobColumns() table names: in `result`, ended, with the row's
// state, exit code and signal. Returns it, or null after a failure.
inline const JobInfo *verifyEndedJob(const JobListResult &result)
{
    QFETCH(QString, name);
    QFETCH(JobState, state);
    QFETCH(int, exitCode);
    QFETCH(int, signal);
    const JobInfo *job = jobNamed(result, name);
    [&] {
        QVERIFY2(job, qPrintable(name));
        QCOMPARE(job->state, state);
        QCOMPARE(job->exitCode, exitCode);
        QCOMPARE(job->signal, signal);
        QVERIFY(job->ended.isValid());
    }();
    return QTest::currentTestFailed() ? nullptr : job;
}

// A table of outputs a parser rejects whole: the output and the start of its first error.
inline void addRejectedOutputColumns()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<QString>("error");
}

// The row of a Slurm command's error reply (no such job): an error on line 1, never a job.
inline void addSlurmErrorReplyRow(const char *name)
{
    QTest::newRow(name) << QByteArray("slurm_load_jobs error: Invalid job id specified\n") << QStringLiteral("line 1:");
}

// Checks that `parse` reads no job from the current row's output and fails with the row's error.
template <typename Parse> void verifyRejectedOutput(Parse parse)
{
    QFETCH(QByteArray, output);
    QFETCH(QString, error);
    const JobListResult result = parse(output);
    QVERIFY(!result.ok());
    QVERIFY(result.jobs.isEmpty());
    QVERIFY2(result.errors.constFirst().startsWith(error), qPrintable(result.errors.constFirst()));
}

} // namespace torchdeck::testing
