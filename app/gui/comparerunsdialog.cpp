#include "gui/comparerunsdialog.h"

#include <QDialogButtonBox>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QVBoxLayout>

namespace torchdeck {

namespace {
constexpr int RunIdRole = Qt::UserRole + 1;
}

CompareRunsDialog::CompareRunsDialog(const QList<RunRecord> &runs, const QString &shownRunId,
                                     const QStringList &checked, QWidget *parent)
    : QDialog(parent)
    , m_filter(new QLineEdit)
    , m_list(new QListWidget)
{
    setObjectName(QStringLiteral("compareRunsDialog"));
    setWindowTitle(tr("Compare with"));
    m_filter->setPlaceholderText(tr("Filter runs"));
    m_filter->setClearButtonEnabled(true);
    for (const RunRecord &run : runs) {
        if (run.id == shownRunId)
            continue;
        auto *item =
            new QListWidgetItem(QStringLiteral("%1  \u2014 %2, %3, %4")
                                    .arg(run.name.isEmpty() ? run.id.left(8) : run.name, run.cluster, run.state,
                                         QLocale().toString(run.created.toLocalTime(), QLocale::ShortFormat)),
                                m_list);
        item->setData(RunIdRole, run.id);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(run.id) ? Qt::Checked : Qt::Unchecked);
    }
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        for (int row = 0; row < m_list->count(); ++row)
            m_list->item(row)->setHidden(!m_list->item(row)->text().contains(text, Qt::CaseInsensitive));
    });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_filter);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
    resize(520, 420);
}

QStringList CompareRunsDialog::checkedRuns() const
{
    QStringList ids;
    for (int row = 0; row < m_list->count(); ++row) {
        if (m_list->item(row)->checkState() == Qt::Checked)
            ids.append(m_list->item(row)->data(RunIdRole).toString());
    }
    return ids;
}

void CompareRunsDialog::setChecked(const QString &runId, bool on)
{
    for (int row = 0; row < m_list->count(); ++row) {
        if (m_list->item(row)->data(RunIdRole).toString() == runId)
            m_list->item(row)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
}

} // namespace torchdeck
