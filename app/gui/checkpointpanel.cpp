#include "gui/checkpointpanel.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/jobs/jobspec.h"
#include "core/metrics/runseries.h"
#include "core/runs/checkpointinventory.h"
#include "core/runs/runbudget.h"
#include "core/runs/runfiles.h"
#include "core/scheduler/jobstate.h"
#include "core/store/runmetrics.h"
#include "core/store/runstore.h"
#include "gui/checkpointlistmodel.h"
#include "gui/pullbar.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace torchdeck {

CheckpointPanel::CheckpointPanel(AgentClient *agent, QWidget *parent)
    : QWidget(parent)
    , m_agent(agent)
    , m_model(new CheckpointListModel(this))
    , m_view(new QTableView)
    , m_resumeHere(new QPushButton(tr("Resume from &here")))
    , m_delete(new QPushButton(tr("&Delete")))
    , m_download(new QPushButton(tr("Do&wnload\u2026")))
    , m_pull(new PullBar(agent))
    , m_budget(new QLabel)
{
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->verticalHeader()->hide();
    m_budget->setWordWrap(true);
    m_budget->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_resumeHere->setToolTip(tr("Resume the run from the selected checkpoint: a branch (newer checkpoints are set "
                                "aside, kept and listed)"));
    m_delete->setToolTip(tr("Delete the selected checkpoints on the cluster (never the latest)"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_budget, 1);
    buttons->addWidget(m_delete);
    buttons->addWidget(m_download);
    buttons->addWidget(m_resumeHere);
    m_download->setToolTip(tr("Copy the selected checkpoints to this machine, checked by SHA-256"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_pull);
    layout->addLayout(buttons);
    connect(m_resumeHere, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid())
            emit resumeRequested(current.siblingAtColumn(0).data(CheckpointListModel::PathRole).toString());
    });
    connect(m_delete, &QPushButton::clicked, this, [this] { deleteSelected(); });
    connect(m_download, &QPushButton::clicked, this, [this] { downloadSelected(); });
    connect(m_pull, &PullBar::message, this, &CheckpointPanel::message);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &CheckpointPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &CheckpointPanel::updateButtons);
    updateButtons();
}

void CheckpointPanel::showRun(const RunRecord *run, const QList<JobRecord> &jobs, const RunMetrics *metrics)
{
    static const RunSeries none;
    const RunSeries &series = metrics ? metrics->series() : none;
    const bool sameRun = run && run->id == m_runId;
    m_runId = run ? run->id : QString();
    m_cluster = run ? run->cluster : QString();
    m_metrics = metrics;
    m_jobRunning = !jobs.isEmpty() && jobStateFromName(jobs.constLast().state) == JobState::Running;
    const QList<CheckpointRecord> records =
        run ? m_agent->store()->checkpoints(run->id).value : QList<CheckpointRecord>{};
    const bool changed = !sameRun || records.size() != m_records.size();
    m_records = records;
    QStringList budget;
    if (run) {
        const JobSpec::FromJson spec = run->spec();
        if (spec.ok()) {
            const WallTimeBudget wall = budgetFromSeries(spec.spec, series);
            if (wall.known)
                budget.append(wall.summary);
            const CheckpointOutlook outlook =
                m_jobRunning
                    ? outlookFromSeries(spec.spec, series, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0)
                    : CheckpointOutlook{};
            if (outlook.known)
                budget.append(outlook.summary);
        }
    }
    m_budget->setText(budget.join(u'\n'));
    if (changed) // what is on the cluster changes only with the list (or a deletion, which reloads)
        showRecords();
}

void CheckpointPanel::showRecords()
{
    QStringList all; // present until the cluster says otherwise
    for (const CheckpointRecord &c : std::as_const(m_records))
        all.append(c.path);
    showEntries(all);
    checkPresence();
}

void CheckpointPanel::showEntries(const QStringList &present)
{
    static const RunSeries none;
    m_model->setEntries(markCheckpoints(m_records, present, m_metrics ? m_metrics->series() : none));
}

void CheckpointPanel::checkPresence()
{
    const quint64 generation = ++m_generation;
    if (m_records.isEmpty() || m_cluster.isEmpty() || m_agent->state(m_cluster) != ConnectionState::Connected)
        return;
    SessionOperation *listing = m_agent->presentCheckpoints(m_cluster, m_runId);
    onReply<agent::Checkpoints>(listing, this, [this, generation](const agent::Checkpoints::Reply &listed) {
        if (generation != m_generation)
            return;
        showEntries(listed.present);
        emit presenceChecked();
    });
}

void CheckpointPanel::deleteSelected(bool confirm)
{
    QStringList wanted;
    for (const QModelIndex &row : m_view->selectionModel()->selectedRows())
        wanted.append(row.data(CheckpointListModel::PathRole).toString().section(u'/', -1));
    if (wanted.isEmpty())
        return;
    const CheckpointDeletion plan = planCheckpointDeletion(m_model->entries(), wanted);
    if (!plan.error.isEmpty())
        return emit message(tr("Not deleted: %1").arg(plan.error));
    if (confirm && QMessageBox::question(this, tr("Delete checkpoints"),
                                         tr("Delete %n checkpoint(s) of this run on %1? They cannot be brought back.",
                                            nullptr, int(plan.paths.size()))
                                             .arg(m_cluster)) != QMessageBox::Yes)
        return;
    if (m_agent->state(m_cluster) != ConnectionState::Connected)
        return emit message(tr("Not connected to %1: nothing deleted").arg(m_cluster));
    const QString runId = m_runId;
    SessionOperation *removal = m_agent->deleteCheckpoints(m_cluster, runId, wanted);
    connect(removal, &SessionOperation::failed, this,
            [this](const QString &error) { emit message(tr("Deleting the checkpoints failed: %1").arg(error)); });
    onReply<agent::DeleteCheckpoints>(removal, this, [this, runId](const agent::DeleteCheckpoints::Reply &result) {
        const QStringList &deleted = result.deleted;
        const QStringList &unrecorded = result.unrecorded;
        emit message(unrecorded.isEmpty()
                         ? tr("Deleted %n checkpoint(s)", nullptr, int(deleted.size()))
                         : tr("Deleted on the cluster, but the run store kept them: %1").arg(unrecorded.join(u"; ")));
        if (runId == m_runId) {
            m_records = m_agent->store()->checkpoints(runId).value;
            showRecords();
        }
    });
}

void CheckpointPanel::downloadSelected(const QString &to)
{
    // Named by their place in the run's directory, where the trainer writes them.
    QStringList files;
    for (const QModelIndex &row : m_view->selectionModel()->selectedRows()) {
        const QString path = row.data(CheckpointListModel::PathRole).toString();
        const QString inRun = pathInRun(m_runId, path);
        if (inRun.isEmpty())
            return emit message(tr("Not downloaded: %1 lies outside the run's directory").arg(path));
        files.append(inRun);
    }
    if (!files.isEmpty())
        m_pull->pull(m_cluster, m_runId, files, {}, to);
}

void CheckpointPanel::updateButtons()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    const bool latestSelected = std::any_of(rows.cbegin(), rows.cend(), [](const QModelIndex &row) {
        return row.data(CheckpointListModel::LatestRole).toBool();
    });
    m_resumeHere->setEnabled(rows.size() == 1 && !m_jobRunning);
    m_delete->setEnabled(!rows.isEmpty() && !latestSelected);
    m_download->setEnabled(!rows.isEmpty());
}

} // namespace torchdeck
