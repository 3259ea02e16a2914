#pragma once

#include "core/runs/checkpointinventory.h"
#include "core/store/runrecord.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace torchdeck {

class CheckpointListModel;
class AgentClient;
class PullBar;
class RunMetrics;

// The Checkpoints tab of a run: its checkpoints with their marks (what is still on each cluster that holds some is
// asked in the background), "Resume from here", "Delete" (never the latest), "Download…" (the trained model here), and
// the wall-time budget: epochs per job and, while a job runs, whether its next checkpoint comes before the warning
// signal.
class CheckpointPanel : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointPanel(AgentClient *agent, QWidget *parent = nullptr);

    // A run (null: none), its jobs and its series as the charts hold it.
    void showRun(const RunRecord *run, const QList<JobRecord> &jobs, const RunMetrics *metrics);
    CheckpointListModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QPushButton *deleteButton() const { return m_delete; }
    QLabel *budgetLabel() const { return m_budget; }
    // Deletes the selected checkpoints after one confirmation (`confirm` false: without asking, for tests).
    void deleteSelected(bool confirm = true);
    // Copies the selected checkpoints to this machine (`to` empty: the user picks where).
    void downloadSelected(const QString &to = {});
    PullBar *pullBar() const { return m_pull; }

signals:
    void resumeRequested(const QString &checkpoint);
    void message(const QString &text);
    void presenceChecked(); // the marks now reflect the files of the clusters that answered

private:
    void showRecords(); // m_records, marked as if all were present, then asks their clusters
    void showEntries();
    void checkPresence();
    void updateButtons();

    AgentClient *m_agent;
    CheckpointListModel *m_model;
    QTableView *m_view;
    QPushButton *m_resumeHere;
    QPushButton *m_delete;
    QPushButton *m_download;
    PullBar *m_pull;
    QLabel *m_budget;
    QString m_runId;
    QString m_cluster;
    QList<CheckpointRecord> m_records;
    CheckpointPlaces m_places;             // a run continued on another cluster has checkpoints on each
    QHash<QString, QStringList> m_present; // what each cluster listed (present until it says otherwise)
    QPointer<const RunMetrics> m_metrics;  // the shown run's series, read as it is now
    bool m_jobRunning = false;
    quint64 m_generation = 0; // a presence answer for an older listing is dropped
};

} // namespace torchdeck
