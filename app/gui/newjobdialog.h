#pragma once

#include "remote/runlauncher.h"

#include <QDialog>
#include <QTimer>

class QComboBox;
class QPushButton;

namespace torchdeck {

class ClusterSessions;
class JobForm;
class JobTemplateBar;
class SubmissionPanel;

// The new-job form on a cluster: the fields with the live script preview (editable: the edited script is
// what gets submitted), Submit, then the deployment's progress and the job id. The last submitted job is
// remembered as the next form's start; named templates keep others.
class NewJobDialog : public QDialog {
    Q_OBJECT
public:
    NewJobDialog(ClusterSessions *sessions, const QStringList &clusters, const QString &cluster,
                 QWidget *parent = nullptr);

    JobForm *form() const { return m_form; }
    SubmissionPanel *panel() const { return m_panel; }
    QString cluster() const;
    void setCluster(const QString &cluster);
    void submit();
    void editScript(); // fetches the script a submission would send, then lets the user edit it
    JobTemplateBar *templates() const { return m_templates; }

signals:
    void submitted(const torchdeck::remote::LaunchResult &result);

private:
    void clusterChanged();
    void updateButtons();
    void updateBudget();

    ClusterSessions *m_sessions;
    QComboBox *m_cluster;
    JobForm *m_form;
    SubmissionPanel *m_panel;
    QPushButton *m_submit;
    JobTemplateBar *m_templates;
    QString m_editedRunId; // the run id the edited script was rendered for
    QTimer m_budgetTimer;  // reads the store once typing pauses, not per keystroke
};

} // namespace torchdeck
