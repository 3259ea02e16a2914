#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobscript.h"
#include "core/jobs/jobspec.h"

#include <QHash>
#include <QWidget>
#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace torchdeck {

class RestartFields;
class ScriptPreview;
class WallTimeBudgetLabel;

// The fields of a job: what to run (the bundled trainer's model, data, epochs, batch, lr, optimizer, or a
// custom command) and on what (nodes, tasks, GPUs, CPUs, memory, wall time, partition, account, modules,
// launch method, checkpoint signal). It makes a JobSpec, validates it with core (errors inline, each field
// marked) and shows core's rendered script beside the fields, live.
class JobForm : public QWidget {
    Q_OBJECT
public:
    explicit JobForm(QWidget *parent = nullptr);

    void setCaps(const ClusterCaps &caps); // the cluster's scheduler, for validation and the preview
    const ClusterCaps &caps() const { return m_caps; }
    JobSpec spec() const;
    void setSpec(const JobSpec &spec);
    // The spec, or nothing with the reasons (also the wall time that does not parse).
    QList<JobSpecError> errors() const { return m_errors; }
    QString previewScript() const; // the script for the fields, as the renderer made it
    // What the preview shows for a spec; by default core's script for the fields. The new-job dialog renders
    // what a submission would send (core's renderSubmission). Re-renders at once.
    void setRenderer(std::function<ScriptResult(const JobSpec &)> render);
    void refreshPreview() { update(); }
    // The agent refused a submission of these fields: their problems are marked and listed as the form's own
    // (the submit waits) until the next change checks the fields again.
    void showRefusal(const QList<JobSpecError> &errors) { showErrors(errors); }
    // How many jobs to submit up front (a chain); 1 unless the user asked for more.
    int chainLength() const;
    RestartFields *restartFields() const { return m_restarts; }
    ScriptPreview *scriptPreview() const { return m_preview; }
    QWidget *field(const QString &name) const { return m_fields.value(name); }
    // Under the wall time; the dialog fills it (it knows the cluster and its earlier runs).
    WallTimeBudgetLabel *budgetLabel() const { return m_budget; }

signals:
    void specChanged();

private:
    QWidget *buildCommandGroup();
    QWidget *buildResourceGroup();
    void track(const QString &field, QWidget *widget);
    void update();
    void showErrors(const QList<JobSpecError> &errors);
    void showPartitionLimits();
    void offer(QLineEdit *field, const QStringList &choices); // a completer of the values the cluster named

    ClusterCaps m_caps;
    bool m_updating = false;
    QList<JobSpecError> m_errors;
    QHash<QString, QWidget *> m_fields; // by JobSpec JSON key, for marking errors

    QRadioButton *m_trainer;
    QRadioButton *m_custom;
    QComboBox *m_model;
    QLineEdit *m_data;
    QSpinBox *m_epochs;
    QSpinBox *m_batch;
    QLineEdit *m_lr;
    QComboBox *m_optimizer;
    QLineEdit *m_extraArgs;
    QLineEdit *m_command;
    QLineEdit *m_perNodeLauncher; // a custom command under srun-per-node
    QLineEdit *m_code;            // a custom command's project folder, uploaded as a snapshot
    QPushButton *m_chooseCode;

    QLineEdit *m_name;
    QSpinBox *m_nodes;
    QSpinBox *m_tasks;
    QSpinBox *m_gpus;
    QSpinBox *m_gpusPerTask;
    QLineEdit *m_gpuType;
    QSpinBox *m_cpus;
    QLineEdit *m_memory;
    QLineEdit *m_wallTime;
    QLineEdit *m_partition;
    QLineEdit *m_account;
    QLineEdit *m_modules;
    QComboBox *m_launch;
    QComboBox *m_signal;
    QSpinBox *m_signalLead;
    QLabel *m_signalLeadNote;
    QLabel *m_partitionNote;           // the chosen partition's limits, where `check` read them
    bool m_leadFollowsWallTime = true; // until the user sets a lead, it is the default for the wall time
    WallTimeBudgetLabel *m_budget;

    QLabel *m_errorLabel;
    ScriptPreview *m_preview;
    RestartFields *m_restarts;
    std::function<ScriptResult(const JobSpec &)> m_render;
};

} // namespace torchdeck
