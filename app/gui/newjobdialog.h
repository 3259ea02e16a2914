#pragma once

#include "remote/runlauncher.h"

#include <QDialog>

class QComboBox;
class QPushButton;

namespace torchdeck {

class ClusterSessions;
class JobForm;
class SubmissionPanel;

// The new-job form on a cluster: the fields with the live script preview, Submit, then the deployment's
// progress and the job id. The last submitted job is remembered as the next form's start.
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

signals:
    void submitted(const torchdeck::remote::LaunchResult &result);

private:
    void clusterChanged();
    void updateButtons();

    ClusterSessions *m_sessions;
    QComboBox *m_cluster;
    JobForm *m_form;
    SubmissionPanel *m_panel;
    QPushButton *m_submit;
};

} // namespace torchdeck
