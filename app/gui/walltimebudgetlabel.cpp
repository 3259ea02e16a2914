#include "gui/walltimebudgetlabel.h"

namespace torchdeck {

WallTimeBudgetLabel::WallTimeBudgetLabel(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("wallTimeBudget"));
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    hide();
}

void WallTimeBudgetLabel::setBudget(const WallTimeBudget &budget)
{
    m_budget = budget;
    setVisible(budget.known);
    if (!budget.known) {
        clear();
        return;
    }
    // The same colour as the form's errors: a job that cannot checkpoint loses all its work at the wall time.
    setStyleSheet(isWarning() ? QStringLiteral("color: #d04040; font-weight: bold;") : QString());
    const QString text =
        (isWarning() ? tr("Warning: ") : QString()) + budget.summary + tr(" (measured on an earlier run)");
    setText(text);
    setToolTip(budget.reachesCheckpoint
                   ? QString()
                   : tr("The job would be stopped before it saves a checkpoint: its work would be lost."));
}

} // namespace torchdeck
