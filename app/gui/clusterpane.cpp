#include "gui/clusterpane.h"

#include "client/agentclient.h"
#include "core/profiles/profilestore.h"
#include "core/runs/checkfindings.h"
#include "gui/clustercheckdialog.h"
#include "gui/clusterlistmodel.h"
#include "gui/clusterprofiledialog.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace torchdeck {

ClusterPane::ClusterPane(ClusterListModel *clusters, AgentClient *agent, QWidget *parent)
    : QWidget(parent)
    , m_clusters(clusters)
    , m_agent(agent)
    , m_view(new QListView)
{
    m_view->setObjectName(QStringLiteral("clusterList"));
    m_view->setModel(clusters);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setToolTip(tr("Double-click a cluster to connect"));
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_view, &QListView::activated, this, [this](const QModelIndex &index) {
        emit connectRequested(index.data(ClusterListModel::NameRole).toString());
    });

    const auto needsSelection = [this](const std::function<void(const QString &)> &act) {
        return [this, act] {
            const QString name = selectedCluster();
            if (name.isEmpty())
                return emit message(tr("Select a cluster first."));
            act(name);
        };
    };
    auto *connectAction = new QAction(tr("&Connect"), this);
    connect(connectAction, &QAction::triggered, this,
            needsSelection([this](const QString &name) { emit connectRequested(name); }));
    auto *addAction = new QAction(tr("&Add cluster\u2026"), this);
    connect(addAction, &QAction::triggered, this, [this] { editProfile({}); });
    auto *editAction = new QAction(tr("&Edit profile\u2026"), this);
    connect(editAction, &QAction::triggered, this, needsSelection([this](const QString &name) { editProfile(name); }));
    auto *checkAction = new QAction(tr("C&heck cluster\u2026"), this);
    checkAction->setToolTip(tr("Check quoting, SFTP, the scheduler, the compiler, LibTorch and the work directory"));
    connect(checkAction, &QAction::triggered, this,
            needsSelection([this](const QString &name) { checkCluster(name); }));
    m_view->addActions({connectAction, editAction, checkAction, addAction});

    auto *buttons = new QHBoxLayout;
    // Short labels: the pane is narrow; the context menu has the full names.
    const std::pair<QAction *, QString> shortNames[] = {
        {addAction, tr("Add\u2026")}, {editAction, tr("Edit\u2026")}, {checkAction, tr("Check\u2026")}};
    for (const auto &[action, text] : shortNames) {
        auto *button = new QToolButton;
        button->setText(text);
        button->setToolTip(action->toolTip().isEmpty() ? action->text().remove(u'&') : action->toolTip());
        connect(button, &QToolButton::clicked, action, &QAction::trigger);
        buttons->addWidget(button);
    }
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Clusters")));
    layout->addWidget(m_view, 1);
    layout->addLayout(buttons);
}

int ClusterPane::fittingWidth() const
{
    const int list =
        m_view->sizeHintForColumn(0) + 2 * m_view->frameWidth() + m_view->verticalScrollBar()->sizeHint().width();
    return std::max(list, layout()->minimumSize().width());
}

QString ClusterPane::selectedCluster() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? current.data(ClusterListModel::NameRole).toString() : QString();
}

void ClusterPane::selectCluster(const QString &name)
{
    const int row = m_clusters->rowOf(name);
    if (row >= 0)
        m_view->setCurrentIndex(m_clusters->index(row));
}

ClusterProfileDialog *ClusterPane::editProfile(const QString &name)
{
    auto *dialog = new ClusterProfileDialog(m_agent->profiles(), name, this);
    dialog->setSshAliases(m_clusters->sshAliases());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ClusterProfileDialog::saved, this, [this](const ClusterProfile &profile) {
        // The agent's session submits, acts and polls with the new profile from now on.
        m_agent->profilesChanged();
        emit profileSaved(profile.name);
        emit message(tr("Saved the profile of %1 in %2").arg(profile.name, m_agent->profiles()->path()));
    });
    dialog->open();
    return dialog;
}

ClusterCheckDialog *ClusterPane::checkCluster(const QString &name)
{
    auto *dialog = new ClusterCheckDialog(m_agent, name, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Whether jobs may requeue themselves there, and its partitions, go to the profile: new runs use them.
    connect(dialog, &ClusterCheckDialog::checked, this, [this, name](const QList<CheckItem> &items) {
        ProfileStore *profiles = m_agent->profiles();
        if (!profiles)
            return;
        ClusterProfile profile = profiles->profile(name);
        if (!keepCheckFindings(items, &profile, QDateTime::currentDateTime()))
            return;
        profiles->put(profile);
        QString problem;
        if (!profiles->save(&problem))
            return emit message(problem);
        m_agent->profilesChanged();
    });
    dialog->show();
    dialog->start();
    return dialog;
}

} // namespace torchdeck
