#pragma once

#include "core/scheduler/jobinfo.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <optional>

// Small readers shared by the scheduler output parsers.
namespace torchdeck::schedulertext {

struct Line {
    int number; // 1-based, as an editor shows it
    QString text;
};

// The output's non-blank lines (UTF-8, \r\n tolerated), numbered as in the whole output.
QList<Line> nonBlankLines(const QByteArray &output);

// Slurm's time stamps: "2026-11-22T18:16:06". "Unknown", "None", "N/A", "" -> invalid.
QDateTime slurmTime(QStringView text);

// PBS's ctime(3) stamps: "Wed Apr 14 23:34:17 2021", "Tue Oct  4 21:23:20 2022". Else invalid.
QDateTime pbsTime(QStringView text);

// A Slurm duration in its input rules: "minutes", "minutes:seconds", "hours:minutes:seconds",
// "days-hours[:minutes[:seconds]]". "UNLIMITED"/"INFINITE" -> 0. Anything else -> -1.
qint64 slurmDuration(QStringView text);

// A PBS duration: "HH:MM:SS" (hours may exceed 24) or plain seconds. Anything else -> -1.
qint64 pbsDuration(QStringView text);

struct ExitStatus {
    int code = -1;
    int signal = 0;
};

// Slurm's "code:signal" (sacct ExitCode, scontrol ExitCode). Malformed -> code -1.
ExitStatus slurmExitCode(QStringView text);

// A raw wait(2) status, as squeue's exit_code prints it: 768 -> code 3; 15 -> signal 15.
ExitStatus waitStatus(int status);

// Job ids as schedulers print them. Slurm: 123, 123_4, 123_[1-5], 123+1. PBS: 123, 123.server,
// 123[].server, 123[7].server.
bool isSlurmJobId(QStringView text);
// The tasks of a Slurm array line that stands for several ("123_[1-3,5%2]" -> 123_1, 123_2, 123_3, 123_5: how
// sacct shows the tasks of an array that never started); the id itself otherwise. At most `most` ids.
QStringList slurmArrayTaskIds(const QString &id, int most = 10000);
bool isPbsJobId(QStringView text);

// A '|'-separated line of a Slurm report with at least `count` fields; else nothing, and the error in `errors`.
[[nodiscard]] std::optional<QStringList> slurmFields(const Line &line, int count, QStringList *errors);

// The error of a Slurm report's line whose id field is not a Slurm job id.
QString notASlurmJobId(const Line &line, QStringView id);

// Where a '|'-separated Slurm report (squeue, sacct) keeps the columns both have.
struct SlurmColumns {
    int id;
    int state;
    int reason;
    int nodes;
    int partition;
    int submit;
    int start;
    int end;
    int timeLimit;
    int elapsed;
};

// The job of such a report's line, read from those columns; exit status, restarts and name are the caller's.
JobInfo slurmJob(const QStringList &fields, const SlurmColumns &columns);

// Slurm's placeholders for "nothing": "(null)", "None", "N/A" -> "".
QString slurmText(QStringView text);

// Rules every parser applies last: a pending job that has run before is Requeued; exit status and end
// time belong to ended jobs only, start time to started ones (Slurm prints expected times).
void settleJob(JobInfo &job);

} // namespace torchdeck::schedulertext
