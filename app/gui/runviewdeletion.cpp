// RunView's "Delete run…" (what goes is said first, with the size of the run's directory on the cluster) and "Open a
// shell".
#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/store/runstore.h"
#include "gui/runview.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QLocale>
#include <QMessageBox>
#include <QProcess>
#include <QStandardPaths>
#include <algorithm>

namespace torchdeck {

void RunView::deleteRun(bool confirm, bool remote)
{
    const auto run = m_runId.isEmpty() ? StoreResult<std::optional<RunRecord>>{} : m_agent->store()->run(m_runId);
    if (!run.ok() || !run.value)
        return;
    const QString cluster = run.value->cluster;
    const QString runId = run.value->id;
    const QString name = run.value->name;
    const auto remove = [this, cluster, runId, name](bool withDirectory) {
        SessionOperation *removal = m_agent->deleteRuns(cluster, {runId}, withDirectory, false);
        connect(removal, &SessionOperation::failed, this,
                [this](const QString &error) { emit message(tr("Not deleted: %1").arg(error)); });
        onReply<agent::DeleteRuns>(
            removal, this, [this, runId, name, withDirectory](const agent::DeleteRuns::Reply &r) {
                const auto removed = [](const agent::RunDirectoryElsewhere &e) { return e.removedDirectory; };
                const bool elsewhere = !r.runs.isEmpty() && std::any_of(r.runs.constFirst().elsewhere.cbegin(),
                                                                        r.runs.constFirst().elsewhere.cend(), removed);
                emit message(!withDirectory ? tr("Deleted run %1 (its files stay on the cluster)").arg(name)
                             : elsewhere ? tr("Deleted run %1 and its directories on the clusters it ran on").arg(name)
                                         : tr("Deleted run %1 and its directory on the cluster").arg(name));
                emit runDeleted(runId);
            });
    };
    if (!confirm)
        return remove(remote);
    // A dry run first: it refuses a run that goes on, and measures the directory.
    emit message(tr("Measuring the directory of run %1 on %2…").arg(name, cluster));
    SessionOperation *dryRun = m_agent->deleteRuns(cluster, {runId}, true, true);
    connect(dryRun, &SessionOperation::failed, this, [this, runId, cluster, name, remove](const QString &error) {
        // An ended run whose cluster cannot be reached now (or is gone) can still be forgotten: its record alone.
        const auto now = m_agent->store()->run(runId);
        if (!now.ok() || !now.value || !now.value->hasEnded()) {
            emit message(tr("Not deleted: %1").arg(error));
            return;
        }
        agent::RunDeletion unmeasured;
        unmeasured.bytes = -1;
        confirmDeletion(cluster, name, unmeasured, error, remove);
    });
    onReply<agent::DeleteRuns>(dryRun, this, [this, cluster, name, remove](const agent::DeleteRuns::Reply &reply) {
        confirmDeletion(cluster, name, reply.runs.value(0), {}, remove);
    });
}

void RunView::confirmDeletion(const QString &cluster, const QString &name, const agent::RunDeletion &deletion,
                              const QString &dryRunError, const std::function<void(bool)> &remove)
{
    QMessageBox box(
        QMessageBox::Question, tr("Delete run"),
        tr("Delete run %1 from this machine's records? Its charts, logs and checkpoints list go.").arg(name),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("confirmDeletion"));
    box.setDefaultButton(QMessageBox::Cancel);
    // Where earlier attempts ran on other clusters, their directories there go too.
    qint64 bytes = deletion.bytes;
    QString where =
        deletion.bytes >= 0
            ? tr("on %1 (%2): %3").arg(cluster, QLocale().formattedDataSize(deletion.bytes), deletion.directory)
            : QString();
    int directories = deletion.bytes >= 0 ? 1 : 0;
    QStringList unasked;
    // In the dry run's own words: the cluster may have answered it (a refusal), not only been out of reach.
    if (!dryRunError.isEmpty())
        unasked.append(tr("the dry run on %1 failed: %2").arg(cluster, dryRunError));
    for (const agent::RunDirectoryElsewhere &elsewhere : deletion.elsewhere) {
        if (!elsewhere.problem.isEmpty())
            unasked.append(tr("%1 was not asked (%2)").arg(elsewhere.cluster, elsewhere.problem));
        if (elsewhere.bytes < 0)
            continue;
        ++directories;
        bytes = std::max<qint64>(bytes, 0) + elsewhere.bytes;
        where += (where.isEmpty() ? QString() : QStringLiteral("; ")) +
                 tr("on %1 (%2): %3")
                     .arg(elsewhere.cluster, QLocale().formattedDataSize(elsewhere.bytes), elsewhere.directory);
    }
    auto *directory = new QCheckBox(!dryRunError.isEmpty() ? tr("Its directory on %1 stays").arg(cluster)
                                    : bytes < 0            ? tr("Its directory on %1 is already gone").arg(cluster)
                                    : directories == 1     ? tr("Also remove its directory %1").arg(where)
                                                           : tr("Also remove its directories %1").arg(where));
    // A directory that cannot be removed now would fail the deletion: the record alone can go.
    directory->setEnabled(bytes >= 0 && unasked.isEmpty());
    if (!unasked.isEmpty())
        box.setInformativeText(tr("Its directories cannot be removed now: %1").arg(unasked.join(QStringLiteral("; "))));
    box.setCheckBox(directory);
    if (box.exec() == QMessageBox::Yes)
        remove(directory->isChecked());
}

bool RunView::openShell()
{
    if (m_runId.isEmpty())
        return false;
    const QString chosen = qEnvironmentVariable("TERMINAL");
    const QString terminal =
        QStandardPaths::findExecutable(chosen.isEmpty() ? QStringLiteral("x-terminal-emulator") : chosen);
    if (terminal.isEmpty()) {
        emit message(
            tr("No terminal emulator found (set $TERMINAL): run torchdeck shell %1 in one").arg(m_runId.left(8)));
        return false;
    }
    // `-e PROGRAM ARGS...`: what x-terminal-emulator, xterm, konsole and gnome-terminal (with a warning) accept.
    const QStringList args{QStringLiteral("-e"), QCoreApplication::applicationFilePath(), QStringLiteral("shell"),
                           m_runId};
    if (!QProcess::startDetached(terminal, args)) {
        emit message(tr("Could not start %1").arg(terminal));
        return false;
    }
    return true;
}

} // namespace torchdeck
