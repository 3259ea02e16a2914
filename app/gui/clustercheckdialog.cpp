#include "gui/clustercheckdialog.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentevents.h"
#include "core/profiles/profilestore.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace torchdeck {

ClusterCheckDialog::ClusterCheckDialog(AgentClient *agent, const QString &cluster, QWidget *parent)
    : QDialog(parent)
    , m_agent(agent)
    , m_cluster(cluster)
    , m_status(new QLabel)
    , m_list(new QTreeWidget)
{
    setObjectName(QStringLiteral("clusterCheckDialog"));
    setWindowTitle(tr("Check %1").arg(cluster));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Check"), tr("Result"), tr("What the cluster said")});
    m_list->setRootIsDecorated(false);
    m_list->setWordWrap(true);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_again = buttons->addButton(tr("Check &again"), QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_again, &QPushButton::clicked, this, &ClusterCheckDialog::start);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
    resize(760, 420);
}

QString ClusterCheckDialog::statusText() const
{
    return m_status->text();
}

void ClusterCheckDialog::start()
{
    if (m_running || !m_agent)
        return;
    m_running = true;
    m_again->setEnabled(false);
    m_items.clear();
    m_list->clear();
    m_status->setText(tr("Connecting to %1\u2026").arg(m_cluster));
    SessionOperation *opened = m_agent->open(m_cluster);
    connect(opened, &SessionOperation::finished, this, &ClusterCheckDialog::run);
    connect(opened, &SessionOperation::failed, this, [this](const QString &error) {
        done(tr("Cannot connect to %1: %2").arg(m_cluster, error));
        emit failed(error);
    });
}

void ClusterCheckDialog::run()
{
    if (!m_agent)
        return done(tr("The agent is gone."));
    m_status->setText(tr("Checking %1\u2026").arg(m_cluster));
    const ClusterCheckSettings settings =
        m_agent->profiles() ? m_agent->profiles()->profile(m_cluster).checkSettings() : ClusterCheckSettings{};
    SessionOperation *check = m_agent->check(m_cluster, settings);
    onEvent<agent::ItemEvent>(check, this, [this](const agent::ItemEvent &checked) { addItem(checked.item); });
    connect(check, &SessionOperation::failed, this, [this](const QString &error) {
        done(tr("The check stopped: %1").arg(error));
        emit failed(error);
    });
    connect(check, &SessionOperation::finished, this, [this] {
        const QList<CheckItem> items = m_items;
        const auto failures = std::count_if(items.cbegin(), items.cend(), [](const CheckItem &i) { return !i.ok; });
        const auto warnings =
            std::count_if(items.cbegin(), items.cend(), [](const CheckItem &i) { return i.ok && i.warning; });
        QString status = failures == 0 ? tr("All %n check(s) passed", nullptr, int(items.size()))
                                       : tr("%n check(s) failed: see what the cluster said", nullptr, int(failures));
        if (warnings > 0)
            status += tr(", %n with a warning", nullptr, int(warnings));
        done(status + u'.');
        emit checked(items);
    });
}

void ClusterCheckDialog::addItem(const CheckItem &item)
{
    m_items.append(item);
    const QString verdict = !item.ok ? tr("FAIL") : item.warning ? tr("warning") : tr("pass");
    auto *row = new QTreeWidgetItem(m_list, {item.name, verdict, item.detail.trimmed()});
    row->setIcon(1, style()->standardIcon(!item.ok       ? QStyle::SP_MessageBoxCritical
                                          : item.warning ? QStyle::SP_MessageBoxWarning
                                                         : QStyle::SP_DialogApplyButton));
    row->setToolTip(2, item.detail);
    if (!item.ok)
        row->setForeground(1, QColor(0xd0, 0x40, 0x40));
    else if (item.warning)
        row->setForeground(1, QColor(0xb0, 0x80, 0x00));
    m_list->scrollToItem(row);
}

void ClusterCheckDialog::done(const QString &status)
{
    m_running = false;
    m_again->setEnabled(true);
    m_status->setText(status);
}

} // namespace torchdeck
