#include "gui/runfilespanel.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "gui/pullbar.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace torchdeck {

namespace {
enum Column { FileColumn, SizeColumn, WrittenColumn, AttemptColumn, MarkColumn };
}

RunFilesPanel::RunFilesPanel(AgentClient *agent, QWidget *parent)
    : QWidget(parent)
    , m_agent(agent)
    , m_list(new QTreeWidget)
    , m_directory(new QLabel)
    , m_download(new QPushButton(tr("&Download\u2026")))
    , m_on(new QComboBox)
    , m_pull(new PullBar(agent))
{
    m_list->setHeaderLabels({tr("File"), tr("Size"), tr("Written"), tr("Attempt"), tr("")});
    m_list->setRootIsDecorated(false);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->header()->setSectionResizeMode(FileColumn, QHeaderView::Stretch);
    m_list->header()->setStretchLastSection(false);
    m_directory->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_download->setToolTip(tr("Copy the selected files here, checked by SHA-256; a download stopped goes on later"));
    auto *reread = new QPushButton(tr("&Refresh"));
    m_on->setToolTip(tr("The run went on on another cluster: its directory on each"));
    m_on->setVisible(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_on);
    buttons->addWidget(m_directory, 1);
    buttons->addWidget(reread);
    buttons->addWidget(m_download);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_pull);
    layout->addLayout(buttons);
    connect(reread, &QPushButton::clicked, this, &RunFilesPanel::refresh);
    connect(m_download, &QPushButton::clicked, this, [this] { downloadSelected(); });
    connect(m_list, &QTreeWidget::itemSelectionChanged, this,
            [this] { m_download->setEnabled(!m_list->selectedItems().isEmpty()); });
    connect(m_pull, &PullBar::message, this, &RunFilesPanel::message);
    connect(m_on, &QComboBox::activated, this, [this] {
        if (m_on->currentText() != m_cluster) {
            m_cluster = m_on->currentText();
            m_list->clear(); // never a download of one cluster's paths from another
            m_directory->clear();
            m_download->setEnabled(false);
            refresh();
        }
    });
    m_download->setEnabled(false);
}

void RunFilesPanel::showRun(const QString &cluster, const QString &runId, const QStringList &ranOn)
{
    if (cluster == m_runCluster && runId == m_runId && ranOn == m_ranOn)
        return;
    m_cluster = cluster;
    m_runCluster = cluster;
    m_ranOn = ranOn;
    m_runId = runId;
    m_on->clear();
    m_on->addItems(ranOn);
    m_on->setCurrentText(cluster);
    m_on->setVisible(ranOn.size() > 1);
    m_list->clear();
    m_directory->clear();
    m_stale = true;
    ++m_generation;
    if (isVisible())
        refresh();
}

QString RunFilesPanel::directory() const
{
    return m_directory->text();
}

void RunFilesPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void RunFilesPanel::refresh()
{
    if (m_runId.isEmpty())
        return;
    m_stale = false;
    const quint64 generation = ++m_generation;
    SessionOperation *listing = m_agent->runFiles(m_cluster, m_runId, {});
    connect(listing, &SessionOperation::failed, this, [this, generation](const QString &error) {
        if (generation == m_generation) {
            m_stale = true;
            m_directory->setText(error);
        }
    });
    onReply<agent::RunFiles>(listing, this, [this, generation](const agent::RunFiles::Reply &reply) {
        if (generation != m_generation)
            return;
        m_list->clear();
        m_directory->setText(reply.directory);
        const QLocale locale;
        for (const agent::RunFileEntry &file : reply.files) {
            if (file.kind == u"d")
                continue; // its files are listed with their paths
            QStringList marks;
            if (file.latest)
                marks.append(tr("latest"));
            if (file.best)
                marks.append(tr("best val loss"));
            if (file.kind == u"l")
                marks.append(tr("\u2192 %1").arg(file.linkTarget));
            auto *item = new QTreeWidgetItem(
                m_list,
                {file.path, locale.formattedDataSize(std::max<qint64>(file.bytes, 0)),
                 QDateTime::fromMSecsSinceEpoch(file.timeMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                 file.attempt >= 0 ? QString::number(file.attempt) : QString(), marks.join(QStringLiteral(", "))});
            item->setData(FileColumn, Qt::UserRole, file.path);
            item->setTextAlignment(SizeColumn, Qt::AlignRight | Qt::AlignVCenter);
        }
        emit listed();
    });
}

void RunFilesPanel::downloadSelected(const QString &to)
{
    QStringList files;
    for (const QTreeWidgetItem *item : m_list->selectedItems())
        files.append(item->data(FileColumn, Qt::UserRole).toString());
    if (!files.isEmpty())
        m_pull->pull(m_cluster, m_runId, files, {}, to);
}

} // namespace torchdeck
