#pragma once

#include "core/store/runrecord.h"

#include <QDialog>

class QLineEdit;
class QListWidget;

namespace torchdeck {

// "Compare with...": the other stored runs (newest first, filterable), several can be ticked; their loss
// curves are drawn over the shown run's.
class CompareRunsDialog : public QDialog {
    Q_OBJECT
public:
    CompareRunsDialog(const QList<RunRecord> &runs, const QString &shownRunId, const QStringList &checked,
                      QWidget *parent = nullptr);

    QStringList checkedRuns() const;
    void setChecked(const QString &runId, bool on);
    QListWidget *list() const { return m_list; }

private:
    QLineEdit *m_filter;
    QListWidget *m_list;
};

} // namespace torchdeck
