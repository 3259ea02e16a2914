#include "remote/clustercheck.h"

#include "core/profiles/accountlimits.h"
#include "core/profiles/partitionshape.h"
#include "core/remotepath.h"
#include "core/runs/accountcheck.h"
#include "core/runs/checkfindings.h"
#include "core/runs/launchercheck.h"
#include "core/runs/requeueprobe.h"
#include "core/shellquote.h"
#include "remote/connection.h"
#include "remote/remotetr.h"

namespace torchdeck::remote {

namespace {
// Every character a shell could misread, and a newline: what comes back must be identical.
const QString quotingProbe = QStringLiteral("a b 'c' \"d\" $(e) `f` $g \\h *?[i] ;&|<>\nj λ");
} // namespace

ClusterCheck::ClusterCheck(Connection *connection, ClusterCheckSettings settings, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_settings(std::move(settings))
{
    qRegisterMetaType<CheckItem>();
    // A check that fails is a line of the list, not the end of it: every step reports and goes on.
    using Check = void (ClusterCheck::*)(const StepHandle &);
    for (const Check check :
         {&ClusterCheck::checkQuoting, &ClusterCheck::checkSftp, &ClusterCheck::checkScheduler,
          &ClusterCheck::checkToolchain, &ClusterCheck::checkLibTorch, &ClusterCheck::checkWorkDirectory,
          &ClusterCheck::checkPyTorchLauncher, &ClusterCheck::checkFairShare, &ClusterCheck::checkQuota})
        m_steps.add({{}, {}, [this, check](const StepHandle &step) { (this->*check)(step); }});
    if (m_settings.scheduler == SchedulerKind::Slurm) {
        m_steps.add({{}, {}, [this](const StepHandle &step) { checkPartitions(step); }});
        m_steps.add({{}, {}, [this](const StepHandle &step) { checkAccounts(step); }});
    }
    for (const QString &line : std::as_const(m_settings.reach))
        m_steps.add({{}, {}, [this, line](const StepHandle &step) { checkReach(step, line); }});
    if (m_settings.probeRequeue)
        m_steps.add({{}, {}, [this](const StepHandle &step) { checkRequeue(step); }});
    connect(&m_steps, &StepSequence::finished, this, [this] { emit finished(m_items); });
}

void ClusterCheck::start()
{
    m_items.clear();
    m_steps.start();
}

void ClusterCheck::report(const StepHandle &step, const CheckItem &item)
{
    m_items.append(item);
    emit itemChecked(item);
    step.done();
}

void ClusterCheck::runShell(const StepHandle &step, const QString &name, const QString &script,
                            const std::function<CheckItem(int, const QString &, const QString &)> &judge)
{
    if (!m_connection)
        return report(step, {name, false, tr("the connection is gone")});
    RemoteCommand *command = m_connection->run(QStringLiteral("bash -c ") + shellQuote(script));
    connect(command, &RemoteCommand::failed, step.context(), [this, name, step](const QString &error) {
        report(step, {name, false, error});
    });
    connect(command, &RemoteCommand::finished, step.context(), [this, judge, step](const ExecResult &result) {
        report(step, judge(result.exitCode, QString::fromUtf8(result.out), QString::fromUtf8(result.err).trimmed()));
    });
}

void ClusterCheck::checkQuoting(const StepHandle &step)
{
    runShell(step, tr("Shell quoting"), QStringLiteral("printf '%s' ") + shellQuote(quotingProbe),
             [](int exitCode, const QString &out, const QString &) {
                 const bool same = exitCode == 0 && out == quotingProbe;
                 return CheckItem{tr("Shell quoting"), same,
                                  same ? tr("quotes, $(...), backticks and newlines come back unchanged")
                                       : tr("the login shell changed the value: got %1").arg(out.left(80))};
             });
}

void ClusterCheck::checkSftp(const StepHandle &step)
{
    const QString name = QStringLiteral("SFTP");
    if (!m_connection)
        return report(step, {name, false, tr("the connection is gone")});
    // SFTP paths are not expanded by a shell: resolve the home directory first.
    RemoteCommand *home = m_connection->run(QStringLiteral("printf '%s' \"$HOME\""));
    connect(home, &RemoteCommand::failed, step.context(), [this, name, step](const QString &error) {
        report(step, {name, false, error});
    });
    connect(home, &RemoteCommand::finished, step.context(), [this, name, step](const ExecResult &result) {
        const QString probe = QString::fromUtf8(result.out) + QStringLiteral("/.torchdeck-sftp-check");
        RemoteUpload *upload = m_connection->uploadData("torchdeck\n", probe, 0600);
        connect(upload, &RemoteUpload::failed, step.context(), [this, name, step](const QString &error) {
            report(step, {name, false, tr("%1 (is the sftp subsystem enabled on the server?)").arg(error)});
        });
        connect(upload, &RemoteUpload::finished, step.context(), [this, name, probe, step] {
            m_connection->run(QStringLiteral("rm -f ") + shellQuote(probe));
            report(step, {name, true, tr("upload and atomic rename work")});
        });
    });
}

void ClusterCheck::checkScheduler(const StepHandle &step)
{
    const QStringList commands =
        m_settings.scheduler == SchedulerKind::Slurm
            ? QStringList{QStringLiteral("sbatch"), QStringLiteral("squeue"), QStringLiteral("scancel")}
        : m_settings.scheduler == SchedulerKind::Pbs
            ? QStringList{QStringLiteral("qsub"), QStringLiteral("qstat"), QStringLiteral("qdel")}
            : QStringList{QStringLiteral("setsid"), QStringLiteral("bash")};
    QString script = m_settings.moduleLines.join(u'\n') + u'\n';
    for (const QString &command : commands)
        script += QStringLiteral("command -v %1 >/dev/null || missing=\"$missing %1\"\n").arg(command);
    script += QStringLiteral("[ -z \"$missing\" ] || { echo \"missing:$missing\"; exit 1; }\n");
    runShell(step, tr("Scheduler"), script, [commands](int exitCode, const QString &out, const QString &) {
        return CheckItem{tr("Scheduler"), exitCode == 0,
                         exitCode == 0 ? tr("%1 found").arg(commands.join(QStringLiteral(", ")))
                                       : tr("%1 (load a module, or pick the right scheduler)").arg(out.trimmed())};
    });
}

void ClusterCheck::checkToolchain(const StepHandle &step)
{
    const QString script = m_settings.moduleLines.join(u'\n') +
                           QStringLiteral("\ncmake --version | head -n1 || exit 1\n"
                                          "for cxx in \"${CXX:-}\" c++ g++ clang++; do\n"
                                          "  [ -n \"$cxx\" ] && command -v \"$cxx\" >/dev/null && { \"$cxx\" "
                                          "--version | head -n1; exit 0; }\n"
                                          "done\necho 'no C++ compiler'; exit 1\n");
    runShell(step, tr("cmake and C++ compiler"), script, [](int exitCode, const QString &out, const QString &err) {
        const QString found = out.trimmed().replace(u'\n', QStringLiteral("; "));
        return CheckItem{
            tr("cmake and C++ compiler"), exitCode == 0,
            exitCode == 0 ? found
                          : tr("%1: the trainer is built on the cluster").arg(QString(found + u' ' + err).trimmed())};
    });
}

void ClusterCheck::checkLibTorch(const StepHandle &step)
{
    // In the order deployment uses them: the configured prefix, cmake's own search (system packages, module
    // environments setting CMAKE_PREFIX_PATH), then a Python torch's bundled LibTorch.
    QString script = m_settings.moduleLines.join(u'\n') + u'\n';
    if (!m_settings.libtorchPrefix.isEmpty())
        script +=
            QStringLiteral("p=%1; ls \"$p\"/Torch/TorchConfig.cmake \"$p\"/TorchConfig.cmake "
                           "\"$p\"/share/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -n1 | grep . && exit 0\n")
                .arg(remotePathExpression(m_settings.libtorchPrefix));
    script += QStringLiteral(
        "for d in ${CMAKE_PREFIX_PATH//:/ } /usr/lib/*/cmake /usr/share/cmake /usr/local/share/cmake; do\n"
        "  ls \"$d\"/Torch/TorchConfig.cmake \"$d\"/share/cmake/Torch/TorchConfig.cmake 2>/dev/null | head "
        "-n1 | grep . && exit 0\n"
        "done\n"
        "python3 -c 'import torch, sys; sys.stdout.write(torch.utils.cmake_prefix_path + \" (Python torch \" "
        "+ torch.__version__ + \")\")' 2>/dev/null && exit 0\n"
        "exit 1\n");
    runShell(step, QStringLiteral("LibTorch"), script, [](int exitCode, const QString &out, const QString &) {
        return CheckItem{QStringLiteral("LibTorch"), exitCode == 0,
                         exitCode == 0 ? out.trimmed()
                                       : tr("not found: set the LibTorch location of this cluster, or a "
                                            "module line that provides it (or install PyTorch for python3)")};
    });
}

void ClusterCheck::checkWorkDirectory(const StepHandle &step)
{
    const QString dir = remotePathExpression(m_settings.workDirectory);
    runShell(
        step, tr("Work directory"),
        QStringLiteral("mkdir -p %1 && t=%1/.torchdeck-write-check && : > \"$t\" && rm -f \"$t\" && cd %1 && pwd -P")
            .arg(dir),
        [this](int exitCode, const QString &out, const QString &err) {
            return CheckItem{tr("Work directory"), exitCode == 0,
                             exitCode == 0 ? tr("%1 is writable").arg(out.trimmed())
                                           : tr("%1 is not writable: %2").arg(m_settings.workDirectory, err)};
        });
}

void ClusterCheck::checkRequeue(const StepHandle &step)
{
    constexpr int waitSeconds = 120; // for the test job to start and requeue itself
    runShell(
        step, requeueProbeItem(0, {}, waitSeconds).name, requeueProbeCommand(m_settings, waitSeconds),
        [](int exitCode, const QString &out, const QString &) { return requeueProbeItem(exitCode, out, waitSeconds); });
}

void ClusterCheck::checkReach(const StepHandle &step, const QString &line)
{
    if (const CheckItem malformed = reachCheckItem(line, -1, {}); !malformed.ok)
        return report(step, malformed);
    runShell(step, reachCheckItem(line, 0, {}).name, reachProbeCommand(line),
             [line](int exitCode, const QString &, const QString &err) { return reachCheckItem(line, exitCode, err); });
}

void ClusterCheck::checkPyTorchLauncher(const StepHandle &step)
{
    runShell(step, pyTorchLauncherItem({}).name, pyTorchLauncherProbeScript(m_settings.moduleLines),
             [](int, const QString &out, const QString &) { return pyTorchLauncherItem(out); });
}

void ClusterCheck::checkFairShare(const StepHandle &step)
{
    runShell(step, fairShareItem(0, {}, {}).name, fairShareProbeScript(m_settings.moduleLines, m_settings.scheduler),
             &fairShareItem);
}

void ClusterCheck::checkPartitions(const StepHandle &step)
{
    if (!m_connection)
        return report(step, {tr("Partitions"), false, tr("the connection is gone")});
    RemoteCommand *command = m_connection->run(sinfoPartitionsCommand());
    connect(command, &RemoteCommand::failed, step.context(), [this, step](const QString &error) {
        report(step, {tr("Partitions"), false, error});
    });
    connect(command, &RemoteCommand::finished, step.context(), [this, step](const ExecResult &result) {
        report(step, partitionsCheckItem(result.exitCode, result.out, QString::fromUtf8(result.err).trimmed()));
    });
}

void ClusterCheck::checkAccounts(const StepHandle &step)
{
    runShell(step, accountsCheckItem(0, {}, {}).name, sacctmgrAssociationsCommand(),
             [](int exitCode, const QString &out, const QString &err) {
                 return accountsCheckItem(exitCode, out.toUtf8(), err);
             });
}

void ClusterCheck::checkQuota(const StepHandle &step)
{
    runShell(step, quotaItem({}).name, quotaProbeScript(),
             [](int, const QString &out, const QString &) { return quotaItem(out); });
}

} // namespace torchdeck::remote
