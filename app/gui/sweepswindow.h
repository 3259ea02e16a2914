#pragma once

#include "core/runs/sweeptable.h"

#include <QDialog>

class QChartView;
class QComboBox;
class QLabel;
class QTableWidget;

namespace torchdeck {

class AgentClient;
class RunStore;

// The window's sweeps: pick one, see its table (the terminal's `sweeps SWEEP`: per point nodes, ranks, seconds
// per epoch, speedup, efficiency, losses, state), for a scaling sweep the speedup against ranks with the ideal
// line, and act on all its runs: overlay their curves in the run view, copy the table as Markdown, save it as
// CSV, cancel, resume or delete them (the terminal's `sweeps SWEEP --cancel | --resume | --delete`). Read from the
// store, which the agent keeps current; refresh() reads it again.
class SweepsWindow : public QDialog {
    Q_OBJECT
public:
    SweepsWindow(AgentClient *agent, RunStore *store, QWidget *parent = nullptr);

    void refresh();                         // the list and the shown sweep, from the store
    void showSweep(const QString &sweepId); // empty: the newest
    QString sweepId() const;
    QTableWidget *table() const { return m_table; }
    QChartView *chart() const { return m_chart; }
    QList<SweepRow> rows() const { return m_rows; }
    QString actionText() const; // what the last resume or delete did, or why it did nothing

    // The buttons' work without their questions, asked of the agent, which chooses the runs and writes the store:
    // every run that ended short of completing goes on from its latest checkpoint; the ended sweep and its runs
    // leave the store (their files stay on the cluster). actionText() says what came of it once it answered.
    void resumeUnfinished();
    void deleteShown();

signals:
    void overlayRequested(const QStringList &runIds); // the sweep's runs, to select together in the run tree

private:
    void showRows();
    void showChart();
    void cancelAll();
    void say(const QString &text);
    const SweepRecord *shownSweep() const;

    AgentClient *m_agent;
    RunStore *m_store;
    QComboBox *m_sweeps;
    QLabel *m_title;
    QLabel *m_action;
    QTableWidget *m_table;
    QChartView *m_chart;
    QList<SweepRecord> m_records;
    QList<SweepRow> m_rows;
};

} // namespace torchdeck
