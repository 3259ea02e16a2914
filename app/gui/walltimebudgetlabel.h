#pragma once

#include "core/jobs/walltimebudget.h"

#include <QLabel>

namespace torchdeck {

// Under the new-job form's wall time: what a comparable earlier run measured says of it (how many epochs,
// each with its checkpoint, fit before the signal), a warning when not even one does, and the signal lead
// to ask for when the chosen one is too short to finish a step and save. Hidden when nothing is known.
class WallTimeBudgetLabel : public QLabel {
    Q_OBJECT
public:
    explicit WallTimeBudgetLabel(QWidget *parent = nullptr);

    void setBudget(const WallTimeBudget &budget);
    const WallTimeBudget &budget() const { return m_budget; }
    bool isWarning() const { return m_budget.known && !m_budget.reachesCheckpoint; }

private:
    WallTimeBudget m_budget;
};

} // namespace torchdeck
