#pragma once

#include "core/jobs/resumefrom.h"
#include "core/metrics/metricevent.h"
#include "core/runs/launchrequest.h"
#include "core/store/runrecord.h"

#include <QPointer>
#include <QWidget>
#include <functional>
#include <optional>

class QAction;
class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QToolButton;

namespace torchdeck {
class LogPatternDialog;
}
class QTabWidget;

namespace torchdeck {
namespace agent {
struct RunDeletion;
}

class CheckpointPanel;
class AgentClient;
class LogPanel;
class RunCharts;
class RunChartsPanel;
class RunActions;
class RunFilesPanel;
class RunNotesBar;
class RunMetrics;

// One run: its charts (live), its log, its checkpoints with resume, the script as submitted, Cancel and
// Requeue (through RunActions, which the window shares for its multi-selection).
class RunView : public QWidget {
    Q_OBJECT
public:
    explicit RunView(AgentClient *agent, QWidget *parent = nullptr);

    void showRun(const QString &runId); // empty: nothing
    QString runId() const { return m_runId; }
    // New events of a run reached the cache: a compared run's curves are redrawn (the shown run's follow it).
    void runMetricsArrived(const QString &runId);
    void runChanged(const QString &runId); // state, jobs or checkpoints may have changed
    // The window was minimized (false) or shown again: while off screen the log is not read and the agent samples
    // nothing for the view.
    void setOnScreen(bool onScreen);

    RunCharts *charts() const;
    RunChartsPanel *chartsPanel() const { return m_chartsPanel; }
    RunMetrics *metrics() const { return m_metrics; }
    LogPanel *logPanel() const { return m_log; }
    QTabWidget *tabs() const { return m_tabs; }
    RunActions *actions() const { return m_actions; }
    CheckpointPanel *checkpointPanel() const { return m_checkpoints; }
    RunFilesPanel *filesPanel() const { return m_files; }
    RunNotesBar *notesBar() const { return m_notes; }
    // Removes the run from the store, and with `remote` its directory on the cluster (refused while a job of it
    // goes on). `confirm`: ask first, saying what goes and how big it is (the box decides `remote`).
    void deleteRun(bool confirm = true, bool remote = false);
    // The user's terminal emulator ($TERMINAL, else x-terminal-emulator) running `torchdeck shell RUN`: a shell in
    // the run's running job. False (and a message) when none could be started.
    bool openShell();
    void cancelRun();
    void requeueRun();
    // The log patterns of the run's cluster, tried on the run's log (a custom command's run).
    LogPatternDialog *openLogPatterns();
    // The next attempt from `checkpoint`, on the run's cluster or, given `cluster`, on another: its checkpoint is
    // copied there first (agent::ContinueOn).
    void resumeFrom(const ResumeFrom &checkpoint, const QString &cluster = {});
    // "Continue on…": the user's other clusters (their ssh config) offered; the run goes on from its latest
    // checkpoint on the one chosen.
    void chooseClusterToContinueOn();
    // The log tab with one attempt's log (a boundary clicked on a chart); the latest job's again on showRun.
    void showAttemptLog(int attempt);
    int shownLogAttempt() const { return m_logAttempt; }

signals:
    void message(const QString &text);
    void resumed(const torchdeck::LaunchResult &result);
    void runDeleted(const QString &runId);

private:
    // The box of "Delete run…": what the dry run measured, or the error it failed with (the record alone).
    void confirmDeletion(const QString &cluster, const QString &name, const agent::RunDeletion &deletion,
                         const QString &dryRunError, const std::function<void(bool)> &remove);
    void reloadDetails();
    void updateAutoRestart(const RunRecord &run, const QList<JobRecord> &jobs);
    // The agent samples what the shown run's job uses while it runs; the line under the header says it.
    void lookAt(const QString &cluster, bool running);
    void dumpStacks();
    void showUses();
    void setAutoRestart(bool enabled);

    AgentClient *m_agent;
    RunActions *m_actions;
    QString m_runId;
    int m_logAttempt = -1;               // -1: the latest job's log
    QString m_keptLogKey;                // run/attempt of the kept log read last
    std::optional<QByteArray> m_keptLog; // its text
    RunMetrics *m_metrics;
    CheckpointPanel *m_checkpoints;
    RunFilesPanel *m_files;
    RunNotesBar *m_notes;
    QLabel *m_header;
    QLabel *m_uses;
    QString m_lookedCluster; // where the agent samples the shown run's job
    bool m_running = false;
    bool m_onScreen = true; // the window is not minimized
    QCheckBox *m_logScale;
    QCheckBox *m_autoRestart;
    QPushButton *m_cancel;
    QPushButton *m_requeue;
    QAction *m_logPatterns; // a custom command's: try and save the cluster's log patterns
    QPushButton *m_resumeLatest;
    QAction *m_openPort;   // a port on the run's node, forwarded by the agent
    QAction *m_stackDump;  // every rank's stack, for a run that stalls
    QAction *m_delete;     // the run's record, and its directory if asked
    QAction *m_shell;      // a terminal with a shell in the running job
    QAction *m_continueOn; // an ended run goes on on another cluster
    QToolButton *m_more;   // the six above: the row of buttons stays narrow
    QTabWidget *m_tabs;
    RunChartsPanel *m_chartsPanel;
    RunCharts *m_charts;
    LogPanel *m_log;
    QPlainTextEdit *m_script;
};

} // namespace torchdeck
