#pragma once

#include "core/jobs/jobscript.h"
#include "core/runs/launchrequest.h"

#include <QDialog>
#include <QTimer>

class QComboBox;
class QPushButton;

namespace torchdeck {

class AgentClient;
class JobForm;
class JobTemplateBar;
class SubmissionPanel;
class SweepDialog;

// The new-job form on a cluster: the fields with the live script preview, which is the script the submission
// sends byte for byte once the cluster is connected (before, its paths show as <work directory>), editable
// (the edited script is what gets submitted); Submit (or a chain of N jobs), then the deployment's progress
// and the job ids. The last submitted job is remembered as the next form's start; named templates keep others.
class NewJobDialog : public QDialog {
    Q_OBJECT
public:
    NewJobDialog(AgentClient *agent, const QStringList &clusters, const QString &cluster, QWidget *parent = nullptr);

    JobForm *form() const { return m_form; }
    SubmissionPanel *panel() const { return m_panel; }
    QString cluster() const;
    void setCluster(const QString &cluster);
    // "Any of…": further clusters the run may go to; a submission asks each (and the cluster above) when the job
    // would start, and sends it where it starts soonest (client/startplacement.h).
    QStringList alsoOn() const;
    void setAlsoOn(const QStringList &clusters);
    void submit();
    void editScript(); // once the cluster's paths are known, the previewed script becomes editable
    QString plannedRunId() const { return m_runId; } // the run the next submission makes
    JobTemplateBar *templates() const { return m_templates; }
    SweepDialog *openSweep(); // the form's job at every point of a grid

signals:
    void submitted(const torchdeck::LaunchResult &result);
    void sweepSubmitted(const QString &sweepId);

private:
    void clusterChanged();
    void applyProfile(); // the cluster's profile as the store holds it now: the form's checks and restart fields
    void submitWhereSoonest(const JobSpec &spec);
    void updateAnyOf();
    void updateButtons();
    void updateBudget();
    void showRefusal(const QList<JobSpecError> &errors);
    LaunchRequest request(const JobSpec &spec, const QString &script = {}) const;
    ScriptResult render(const JobSpec &spec) const;

    AgentClient *m_agent;
    QComboBox *m_cluster;
    JobForm *m_form;
    SubmissionPanel *m_panel;
    QPushButton *m_submit;
    QPushButton *m_sweep;
    QPushButton *m_anyOf; // its menu: the other clusters, checkable
    JobTemplateBar *m_templates;
    QString m_runId; // planned: what the preview shows is what this run's submission sends
    JobSpec m_sent;  // the fields of the submission in flight: a refusal marks them while they are unchanged
    QList<JobSpecError> m_refused; // the agent's last refusal of m_sent
    QMetaObject::Connection m_workDirectoryLink;
    QTimer m_budgetTimer; // reads the store once typing pauses, not per keystroke
};

} // namespace torchdeck
