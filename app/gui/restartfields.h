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
// in the run view. A run offered to several clusters may also move a restart that waits too long (--move-after).
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
    // A run offered to several clusters ("Any of…") may move a restart that waits (--move-after): the field is
    // enabled only then.
    void setMoveAllowed(bool allowed);

signals:
    void changed();

private:
    void limitChain();
    void showMechanism();

    QSpinBox *m_maxRestarts;
    QCheckBox *m_requeue;
    QSpinBox *m_chain;
    QSpinBox *m_moveAfter; // minutes; 0: never
    QLabel *m_chainNote;
    QLabel *m_mechanism;
    ClusterProfile m_profile;
    bool m_requeueChosen = false; // clicked: the user's choice, not the cluster's default
    bool moves() const;
};

} // namespace torchdeck
