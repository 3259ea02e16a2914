#pragma once

#include "core/jobs/jobspec.h"
#include "core/runs/sweepplan.h"

#include <QDialog>
#include <QTimer>

class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace torchdeck {

class AgentClient;
class SubmissionPanel;

// "Sweep...": the job form's spec (a template's, as submit --job takes one) run at every point of a grid the
// user edits (a setting and its values per row). Every point's script is checked against the cluster before
// anything is sent; the count, the node-hours and whether the points go as one job array are shown; the agent
// sends them (ClusterSession::submitSweep), so a sweep outlives the window.
class SweepDialog : public QDialog {
    Q_OBJECT
public:
    SweepDialog(AgentClient *agent, const QString &cluster, const JobSpec &base, QWidget *parent = nullptr);

    QTableWidget *axesTable() const { return m_axes; }
    void setAxis(int row, const QString &name, const QString &values); // as the user types them
    QString summary() const;
    SubmissionPanel *panel() const { return m_panel; }
    void submit();

signals:
    void sweepSubmitted(const QString &sweepId);

private:
    // The grid's axes, then core's plan of them (core/runs/sweepplan.h).
    struct Plan {
        QList<SweepAxis> axes;
        SweepPlan planned;
    };
    Plan plan() const;
    void updateSummary();

    AgentClient *m_agent;
    QString m_cluster;
    JobSpec m_base;
    QTableWidget *m_axes;
    QSpinBox *m_maxRunning;
    QCheckBox *m_separate;
    QLabel *m_summary;
    SubmissionPanel *m_panel;
    QPushButton *m_submit;
    QTimer m_update;
    QString m_sweepId;
};

} // namespace torchdeck
