#pragma once

#include "core/jobs/jobspec.h"

#include <QGroupBox>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace torchdeck {

// The job form's restart fields, as `torchdeck submit` has them: the restart limit (--max-restarts), the
// in-job requeue (--requeue) and a chain of N jobs submitted up front (--chain N, each after the one before
// fails). The automatic restart from outside is on for every run and switched per run in the run view.
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

signals:
    void changed();

private:
    void limitChain();

    QSpinBox *m_maxRestarts;
    QCheckBox *m_requeue;
    QSpinBox *m_chain;
    QLabel *m_chainNote;
};

} // namespace torchdeck
