#pragma once

#include "core/jobs/jobspec.h"
#include "core/profiles/clusterprofile.h"

#include <QGroupBox>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace torchdeck {

// The job form's restart fields, as `torchdeck submit` has them: the restart limit (--max-restarts), the
// in-job requeue (--requeue) and a chain of N jobs submitted up front (--chain N, each after the one before
// fails). The in-job requeue is on by default where `torchdeck check` proved the cluster allows it, and a line
// says which mechanism the run gets and why; the agent's restart from outside is the fallback, switched per run
// in the run view.
class RestartFields : public QGroupBox {
    Q_OBJECT
public:
    explicit RestartFields(QWidget *parent = nullptr);

    void apply(JobSpec &spec) const; // maxRestarts, requeue
    void setFrom(const JobSpec &spec);
    // 1: one job; N: the first and N - 1 attempts queued behind it (the bundled trainer only).
    int chainLength() const;
    void setChainLength(int jobs);
    void setTrainer(bool trainer); // chains resume from checkpoints: the bundled trainer only
    // The cluster's default for the in-job requeue, unless the box was clicked.
    void setCluster(const ClusterProfile &profile);
    QString mechanismText() const;

signals:
    void changed();

private:
    void limitChain();
    void showMechanism();

    QSpinBox *m_maxRestarts;
    QCheckBox *m_requeue;
    QSpinBox *m_chain;
    QLabel *m_chainNote;
    QLabel *m_mechanism;
    ClusterProfile m_profile;
    bool m_requeueChosen = false; // clicked: the user's choice, not the cluster's default
};

} // namespace torchdeck
