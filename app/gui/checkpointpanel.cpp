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
    const CheckpointPlaces places(m_cluster, jobs);
    const bool changed =
        !sameRun || records.size() != m_records.size() || places.clusters(records) != m_places.clusters(m_records);
    m_records = records;
    m_places = places;
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
    m_present = m_places.asRecorded(m_records); // present until their cluster says otherwise
    showEntries();
    checkPresence();
}

void CheckpointPanel::showEntries()
{
    static const RunSeries none;
    m_model->setEntries(markCheckpoints(m_records, m_places, m_present, m_metrics ? m_metrics->series() : none),
                        m_cluster);
}

void CheckpointPanel::checkPresence()
{
    const quint64 generation = ++m_generation;
    for (const QString &cluster : m_places.clusters(m_records)) {
        if (cluster.isEmpty() || m_agent->state(cluster) != ConnectionState::Connected)
            continue;
        SessionOperation *listing = m_agent->presentCheckpoints(cluster, m_runId);
        onReply<agent::Checkpoints>(listing, this,
                                    [this, generation, cluster](const agent::Checkpoints::Reply &listed) {
                                        if (generation != m_generation)
                                            return;
                                        m_present.insert(cluster, listed.present);
                                        showEntries();
                                        emit presenceChecked();
                                    });
    }
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
    const QStringList clusters = plan.byCluster.keys();
    if (confirm && QMessageBox::question(this, tr("Delete checkpoints"),
                                         tr("Delete %n checkpoint(s) of this run on %1? They cannot be brought back.",
                                            nullptr, int(plan.paths.size()))
                                             .arg(clusters.join(tr(" and ")))) != QMessageBox::Yes)
        return;
    for (const QString &cluster : clusters)
        if (m_agent->state(cluster) != ConnectionState::Connected)
            return emit message(tr("Not connected to %1: nothing deleted").arg(cluster));
    const QString runId = m_runId;
    for (auto cluster = plan.byCluster.cbegin(); cluster != plan.byCluster.cend(); ++cluster) {
        QStringList names; // each on the cluster it lies on
        for (const QString &path : cluster.value())
            names.append(path.section(u'/', -1));
        SessionOperation *removal = m_agent->deleteCheckpoints(cluster.key(), runId, names);
        connect(removal, &SessionOperation::failed, this, [this, where = cluster.key()](const QString &error) {
            emit message(tr("Deleting the checkpoints on %1 failed: %2").arg(where, error));
        });
        onReply<agent::DeleteCheckpoints>(removal, this, [this, runId](const agent::DeleteCheckpoints::Reply &result) {
            const QStringList &unrecorded = result.unrecorded;
            emit message(
                unrecorded.isEmpty()
                    ? tr("Deleted %n checkpoint(s)", nullptr, int(result.deleted.size()))
                    : tr("Deleted on the cluster, but the run store kept them: %1").arg(unrecorded.join(u"; ")));
            if (runId == m_runId) {
                m_records = m_agent->store()->checkpoints(runId).value;
                showRecords();
            }
        });
    }
}

void CheckpointPanel::downloadSelected(const QString &to)
{
    // Named by their place in the run's directory, where the trainer writes them; from the cluster they lie on.
    QStringList files;
    QString cluster;
    for (const QModelIndex &row : m_view->selectionModel()->selectedRows()) {
        const CheckpointEntry &entry = m_model->entries().at(row.row());
        const QString inRun = pathInRun(m_runId, entry.record.path);
        if (inRun.isEmpty())
            return emit message(tr("Not downloaded: %1 lies outside the run's directory").arg(entry.record.path));
        if (!cluster.isEmpty() && entry.cluster != cluster)
            return emit message(tr("Not downloaded: the checkpoints selected lie on %1 and %2; download those of one "
                                   "cluster at a time")
                                    .arg(cluster, entry.cluster));
        cluster = entry.cluster;
        files.append(inRun);
    }
    if (!files.isEmpty())
        m_pull->pull(cluster, m_runId, files, {}, to);
}

void CheckpointPanel::updateButtons()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    const bool latestSelected = std::any_of(rows.cbegin(), rows.cend(), [](const QModelIndex &row) {
        return row.data(CheckpointListModel::LatestRole).toBool();
    });
    // A checkpoint on another cluster than the run's: a resume there is `resume --on` (the window's Continue on).
    const bool here = rows.size() == 1 && m_model->entries().at(rows.first().row()).cluster == m_cluster;
    m_resumeHere->setEnabled(here && !m_jobRunning);
    m_delete->setEnabled(!rows.isEmpty() && !latestSelected);
    m_download->setEnabled(!rows.isEmpty());
}

} // namespace torchdeck
