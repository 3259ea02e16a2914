#pragma once
// Runs a rendered job script under bash with the scheduler's commands replaced by shell functions that record
// their argv: srun, mpirun and bash (the launchers), module, qrerun, scontrol (show hostnames answers
// node1/node2) and hostname. Each call appends its argv, NUL-separated, then PWD=, ONE= (TEST_ONE), TWO=
// (TEST_TWO), MASTER_ADDR= and MASTER_PORT=, to the trace. A launcher exits with $FAKE_EXIT; with
// $FAKE_WAIT set it first creates that file and waits for USR2.

#include <QByteArray>
#include <QDirIterator>
#include <QFile>
#include <QList>
#include <QProcess>
#include <QStringList>

namespace torchdeck::testing {

// Spaces, both quotes, command substitutions, variables, a newline, globs, a backslash, UTF-8: no '/' (it
// names directories too) and no '%' (log paths treat it as a pattern).
inline QString hostile(const QString &tag)
{
    return tag + QStringLiteral(" it's \"q\" $(touch CANARY_") + tag + QStringLiteral(") `touch CANARY_") + tag +
           QStringLiteral("b` ${HOME} $HOME\nline2; echo no >&2 \\ \\' * ? [a] ~ ! # λ\t|&;<> -n");
}

inline const char *const kPrelude = R"(
fake_record() {
    printf '%s\0' "$@" "PWD=$PWD" "ONE=${TEST_ONE-unset}" "TWO=${TEST_TWO-unset}" \
        "MASTER_ADDR=${MASTER_ADDR-unset}" "MASTER_PORT=${MASTER_PORT-unset}" '@@END@@' >>"$FAKE_TRACE"
}
fake_launcher() { # records argv; exits with FAKE_EXIT, or waits for USR2 first when FAKE_WAIT is set
    fake_record "$@"
    if [ -n "${FAKE_WAIT-}" ]; then
        fake_got=
        trap 'fake_got=1' USR2
        : >"$FAKE_WAIT"
        while [ -z "$fake_got" ]; do sleep 0.05; done
        fake_record got-USR2
    fi
    return "${FAKE_EXIT:-0}"
}
srun() { fake_launcher srun "$@"; }
mpirun() { fake_launcher mpirun "$@"; }
bash() { fake_launcher bash "$@"; }
module() { fake_record module "$@"; }
qrerun() { fake_record qrerun "$@"; }
hostname() { echo pbs-mom; }
scontrol() { if [ "$1" = show ]; then printf 'node1\nnode2\n'; else fake_record scontrol "$@"; fi; }
)";

struct ShellRun {
    int exitCode = -1;
    QList<QStringList> records; // argv of each recorded call, then the PWD=/ONE=/... fields
    QByteArray stderrText;
};

// Writes the fakes and `script` to dir/job.sh and runs it there. With `started`, returns at once: the
// caller owns the running bash.
inline ShellRun runWithFakes(const QString &dir, const QString &script, const QStringList &env,
                             QProcess *started = nullptr)
{
    const QString trace = dir + QStringLiteral("/trace");
    QFile::remove(trace);
    QFile file(dir + QStringLiteral("/job.sh"));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(kPrelude);
    file.write(script.toUtf8());
    file.close();

    QProcess local;
    QProcess &bash = started ? *started : local;
    const QStringList base{QStringLiteral("PATH=/usr/bin:/bin"), QStringLiteral("HOME=") + dir,
                           QStringLiteral("FAKE_TRACE=") + trace};
    bash.setEnvironment(base + env);
    bash.setWorkingDirectory(dir);
    bash.start(QStringLiteral("/bin/bash"), {file.fileName()});
    if (started)
        return {};
    ShellRun run;
    if (!bash.waitForFinished(30000))
        return run;
    run.exitCode = bash.exitCode();
    run.stderrText = bash.readAllStandardError();
    QFile traceFile(trace);
    if (traceFile.open(QIODevice::ReadOnly)) {
        QStringList record;
        for (const QByteArray &field : traceFile.readAll().split('\0')) {
            if (field == "@@END@@") {
                run.records.append(record);
                record.clear();
            } else {
                record.append(QString::fromUtf8(field));
            }
        }
    }
    return run;
}

// The first CANARY_* file under `dir`: a hostile value was executed. Empty if none.
inline QString findCanary(const QString &dir)
{
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        if (it.fileName().startsWith(u"CANARY_"))
            return it.filePath();
    }
    return {};
}

} // namespace torchdeck::testing
