#include "gui/mainwindow.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/sshconfigparser.h"
#include "gui/clusterlistmodel.h"
#include "gui/clusterpane.h"
#include "gui/colorscheme.h"
#include "gui/connectionprompts.h"
#include "gui/keychainsecrets.h"
#include "gui/newjobdialog.h"
#include "gui/runactions.h"
#include "gui/runchartspanel.h"
#include "gui/runtreemodel.h"
#include "gui/runview.h"
#include "gui/settingsdialog.h"
#include "gui/sweepswindow.h"

#include <QAction>
#include <QCloseEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace torchdeck {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_agent(new AgentClient({QStringLiteral("window"), true, true, true}, &m_store, this))
    , m_secrets(new KeychainSecrets(this))
    , m_agentLabel(new QLabel)
    , m_pollLabel(new QLabel)
    , m_clusters(new ClusterListModel(this))
    , m_runs(new RunTreeModel(this))
    , m_filtered(new QSortFilterProxyModel(this))
    , m_clusterPane(new ClusterPane(m_clusters, m_agent))
    , m_runTree(new QTreeView)
    , m_filter(new QLineEdit)
    , m_listSplitter(new QSplitter(Qt::Horizontal))
    , m_runSplitter(new QSplitter(Qt::Vertical))
    , m_runView(new RunView(m_agent))
{
    setWindowTitle(QStringLiteral("torchdeck"));
    m_windowPollMs = m_agent->pollInterval();
    m_agent->setProfiles(&m_profiles);
    answerWithDialogs(m_agent, this, m_secrets);
    listenToAgent();
    m_pollLabel->setObjectName(QStringLiteral("nextPoll"));
    m_pollLabel->setToolTip(tr("When the agent asks the cluster's scheduler next: more often while runs start or end, "
                               "less while nothing changes, never more often than the profile's minimum; metrics "
                               "and logs stream in between"));
    statusBar()->addPermanentWidget(m_pollLabel);
    statusBar()->addPermanentWidget(m_agentLabel);

    QString problem;
    if (!m_profiles.load(&problem))
        statusBar()->showMessage(problem);
    // The agent saves each cluster's shape as it reads it, other fronts their edits: the window follows.
    m_agent->followProfiles();
    connect(m_agent, &AgentClient::profilesFollowed, this, [this] {
        const QString selected = m_clusterPane->selectedCluster(); // a profile added or gone resets the list
        m_clusters->setClusters(m_clusters->sshAliases(), m_profiles.names());
        if (!selected.isEmpty())
            m_clusterPane->selectCluster(selected);
    });
    connect(m_agent, &AgentClient::profilesUnreadable, this,
            [this](const QString &error) { statusBar()->showMessage(error, 8000); });
    const StoreStatus opened = m_store.openReadOnly(RunStore::defaultPath()); // the agent alone writes it
    if (!opened.ok())
        statusBar()->showMessage(tr("Cannot open the run store: %1").arg(opened.error));

    connect(m_clusterPane, &ClusterPane::connectRequested, this, &MainWindow::connectCluster);
    connect(m_clusterPane, &ClusterPane::profileSaved, this, [this](const QString &name) {
        reloadClusters();
        m_clusterPane->selectCluster(name);
    });
    connect(m_clusterPane, &ClusterPane::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 8000); });

    m_filtered->setSourceModel(m_runs);
    m_filtered->setFilterKeyColumn(-1);
    m_filtered->setFilterRole(RunTreeModel::FilterRole);
    m_filtered->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setPlaceholderText(tr("Filter runs (name, tag, note, cluster, state, job id)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_filtered, &QSortFilterProxyModel::setFilterFixedString);
    m_filtered->setRecursiveFilteringEnabled(true); // a cluster row stays while one of its runs matches
    m_filtered->setAutoAcceptChildRows(true);       // typing a cluster's name shows all its runs
    m_runTree->setObjectName(QStringLiteral("runTree"));
    m_runTree->setModel(m_filtered);
    m_runTree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_runTree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_runTree->setAlternatingRowColors(true);
    m_runTree->setUniformRowHeights(true);
    m_runTree->header()->setStretchLastSection(true);
    m_runTree->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_runTree->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const QString runId = current.data(RunTreeModel::RunIdRole).toString();
                if (!runId.isEmpty()) // a cluster row keeps the run shown
                    m_runView->showRun(runId);
                overlaySelectedRuns();
            });
    // Several runs selected: the others are overlaid on the current one's charts, with a table beside them.
    connect(m_runTree->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::overlaySelectedRuns);
    // A cluster's row spans the table ("alpha: 3 runs, 1 active"), its runs in view below it.
    const auto showClusters = [this] {
        for (int row = 0; row < m_filtered->rowCount(); ++row)
            m_runTree->setFirstColumnSpanned(row, {}, true);
        m_runTree->expandAll();
    };
    connect(m_filtered, &QAbstractItemModel::rowsInserted, m_runTree, [showClusters](const QModelIndex &under) {
        if (!under.isValid()) // a new cluster
            showClusters();
    });
    connect(m_filtered, &QAbstractItemModel::modelReset, m_runTree, showClusters);
    connect(m_filtered, &QAbstractItemModel::layoutChanged, m_runTree, showClusters);
    connect(m_filtered, &QAbstractItemModel::rowsRemoved, m_runTree, showClusters);
    auto *runPane = new QWidget;
    auto *runLayout = new QVBoxLayout(runPane);
    runLayout->setContentsMargins(0, 0, 0, 0);
    runLayout->addWidget(m_filter);
    runLayout->addWidget(m_runTree);

    // The clusters and the runs side by side on top, the run view across the whole width under them: the charts
    // get the room, not a column of clusters holding one line.
    m_listSplitter->addWidget(m_clusterPane);
    m_listSplitter->addWidget(runPane);
    m_listSplitter->setStretchFactor(1, 1);
    m_runSplitter->addWidget(m_listSplitter);
    m_runSplitter->addWidget(m_runView);
    m_runSplitter->setStretchFactor(1, 3);
    setCentralWidget(m_runSplitter);
    connect(m_runView, &RunView::message, this, [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    connect(m_runView, &RunView::resumed, this, [this](const LaunchResult &result) { updateRunRow(result.runId); });

    buildActions();
    reloadClusters();
    reloadRuns();
    restoreState();
    // Once the window is up it attaches to the agent (starting it when none runs). The agent follows and restarts
    // the unfinished runs whether a window is open or not; its questions (a host key, a one-time code) come here.
    QTimer::singleShot(0, m_agent, &AgentClient::attach);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    QAction *newJob = bar->addAction(tr("&New job\u2026"), this, [this] { openNewJob(); });
    newJob->setShortcut(QKeySequence::New);
    QAction *refresh = bar->addAction(tr("&Refresh"), this, &MainWindow::refreshAll);
    refresh->setShortcut(QKeySequence::Refresh);
    QAction *sweeps = bar->addAction(tr("S&weeps…"), this, [this] { openSweeps(); });
    sweeps->setObjectName(QStringLiteral("sweepsAction"));
    sweeps->setToolTip(tr("Your sweeps: each point's speed and losses, the speedup against ranks"));
    QAction *connectAction = bar->addAction(tr("&Connect"), this, [this] { connectCluster(selectedCluster()); });
    connectAction->setToolTip(tr("Connect to the selected cluster and follow its runs"));
    bar->addSeparator();
    QAction *settings = bar->addAction(tr("&Settings\u2026"), this, &MainWindow::openSettings);
    settings->setObjectName(QStringLiteral("settingsAction"));
    settings->setToolTip(tr("The agent: keep watching your runs after you log in, how long it stays idle"));
    QMenu *colours = colorSchemeMenu(this);
    colours->setObjectName(QStringLiteral("colourMenu"));
    auto *coloursButton = new QToolButton;
    coloursButton->setText(colours->title());
    coloursButton->setMenu(colours);
    coloursButton->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(coloursButton);
    QAction *find = new QAction(tr("&Filter runs"), this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    addAction(find);
    auto *cancelRuns = new QAction(tr("&Cancel selected runs\u2026"), this);
    cancelRuns->setShortcut(QKeySequence::Delete);
    cancelRuns->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(cancelRuns, &QAction::triggered, this, &MainWindow::cancelSelectedRuns);
    auto *requeue = new QAction(tr("Re&queue run\u2026"), this);
    connect(requeue, &QAction::triggered, this, [this] {
        if (!m_runView->runId().isEmpty())
            m_runView->requeueRun();
    });
    m_runTree->addActions({cancelRuns, requeue});
    newJob->setToolTip(tr("New job (%1)").arg(newJob->shortcut().toString(QKeySequence::NativeText)));
    refresh->setToolTip(tr("Refresh (%1)").arg(refresh->shortcut().toString(QKeySequence::NativeText)));
}

void MainWindow::reloadClusters()
{
    const SshConfig config = readUserSshConfig();
    m_clusters->setClusters(config.hostAliases(), m_profiles.names());
    statusBar()->showMessage(tr("%n cluster(s) from %1", nullptr, int(m_clusters->rowCount())).arg(userSshConfigPath()),
                             5000);
}

void MainWindow::reloadRuns()
{
    if (!m_store.isOpen())
        return;
    const auto runs = m_store.runs();
    if (!runs.ok()) {
        statusBar()->showMessage(tr("Cannot read the runs: %1").arg(runs.error));
        return;
    }
    QHash<QString, QStringList> jobIds;
    for (const RunRecord &run : runs.value)
        jobIds[run.id] = submittedJobIds(m_store.jobs(run.id).value);
    const QString selected = m_runView->runId();
    m_runs->setRuns(runs.value, jobIds);
    if (!selected.isEmpty())
        selectRun(selected);
}

void MainWindow::updateRunRow(const QString &runId)
{
    const auto run = m_store.run(runId);
    if (!run.ok())
        return;
    if (!run.value) { // deleted (torchdeck delete, "Delete run…"): its row goes, and the run view empties
        if (m_runs->run(runId))
            reloadRuns();
        if (m_runView->runId() == runId)
            m_runView->showRun({});
        return;
    }
    const bool shown = m_runView->runId() == runId;
    m_runs->updateRun(*run.value, submittedJobIds(m_store.jobs(runId).value));
    if (shown && m_runView->runId() != runId)
        selectRun(runId); // it moved to another cluster's group: still the one shown
    m_runView->runChanged(runId);
}

QString MainWindow::selectedCluster() const
{
    return m_clusterPane->selectedCluster();
}

void MainWindow::connectCluster(const QString &cluster)
{
    if (cluster.isEmpty()) {
        statusBar()->showMessage(tr("Select a cluster first."), 5000);
        return;
    }
    m_agent->open(cluster);
}

void MainWindow::listenToAgent()
{
    connect(m_agent, &AgentClient::attached, this, [this] {
        m_agentLabel->setText(tr("agent %1").arg(m_agent->agentPid()));
        m_agentLabel->setToolTip(tr("The torchdeck agent holds the connections and restarts your runs, also with no "
                                    "window open"));
        reloadRuns(); // what it did while the window was away
    });
    connect(m_agent, &AgentClient::detached, this, [this](const QString &reason) {
        m_agentLabel->setText(tr("no agent"));
        m_agentLabel->setToolTip(reason);
        statusBar()->showMessage(tr("The agent: %1").arg(reason), 8000);
    });
    connect(m_agent, &AgentClient::stateChanged, this,
            [this](const QString &cluster, ConnectionState state, const QString &detail) {
                m_clusters->setState(cluster, state, detail);
                if (state != ConnectionState::Connected && m_pollLabel->text().startsWith(cluster + u':'))
                    m_pollLabel->clear();
                statusBar()->showMessage(QStringLiteral("%1: %2 %3").arg(cluster, connectionStateName(state), detail),
                                         8000);
                if (state == ConnectionState::Connected)
                    m_runView->runChanged(m_runView->runId()); // the log can be read now
            });
    // The shown run's series is the cache's, which these events update (and a reset reads again).
    connect(m_agent, &AgentClient::metricsArrived, m_runView, &RunView::runMetricsArrived);
    connect(m_agent, &AgentClient::runUpdated, this, &MainWindow::updateRunRow);
    connect(m_agent, &AgentClient::submitted, this, [this](const LaunchResult &result) { updateRunRow(result.runId); });
    connect(m_agent, &AgentClient::refreshed, this, [this](const QString &cluster, const QString &problem) {
        const QString next = nextPollText(m_agent->nextPoll(cluster));
        m_pollLabel->setText(next.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(cluster, next));
        if (!problem.isEmpty())
            statusBar()->showMessage(QStringLiteral("%1: %2").arg(cluster, problem), 8000);
    });
    connect(m_agent, &AgentClient::restarted, this,
            [this](const QString &runId, const QString &jobId, const QString &reason) {
                statusBar()->showMessage(tr("Run %1 restarted as job %2 (%3)").arg(runId.left(8), jobId, reason),
                                         15000);
                updateRunRow(runId);
            });
    connect(m_agent, &AgentClient::restartFailed, this,
            [this](const QString &, const QString &error) { statusBar()->showMessage(error, 15000); });
    // What the agent told the user of a run (the desktop notification says it too): the status bar repeats it
    // while the window is open; restarts say themselves above.
    connect(m_agent, &AgentClient::notice, this,
            [this](const QString &runId, const QString &event, const QString &title, const QString &body) {
                if (event != u"restarted" && event != u"restart_failed")
                    statusBar()->showMessage(QStringLiteral("%1: %2").arg(title, body), 30000);
                updateRunRow(runId);
            });
    connect(m_agent, &AgentClient::storeFailed, this,
            [this](const QString &error) { statusBar()->showMessage(tr("Run store: %1").arg(error)); });
}

void MainWindow::openSettings()
{
    auto *dialog = new SettingsDialog(m_agent, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::refreshAll()
{
    reloadRuns();
    for (const QString &cluster : m_clusters->names()) {
        if (m_agent->state(cluster) == ConnectionState::Connected)
            m_agent->refresh(cluster, {}, 0);
    }
}

void MainWindow::selectRun(const QString &runId)
{
    const QModelIndex index = m_filtered->mapFromSource(m_runs->indexOf(runId));
    if (index.isValid())
        m_runTree->selectionModel()->setCurrentIndex(index,
                                                     QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void MainWindow::selectRuns(const QStringList &runIds)
{
    QItemSelection selection;
    for (const QString &runId : runIds) {
        const QModelIndex index = m_filtered->mapFromSource(m_runs->indexOf(runId));
        if (index.isValid())
            selection.select(index, index);
    }
    if (selection.isEmpty())
        return;
    m_runTree->selectionModel()->setCurrentIndex(selection.indexes().constFirst(), QItemSelectionModel::NoUpdate);
    m_runTree->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_runView->showRun(runIds.constFirst());
    overlaySelectedRuns();
}

QStringList MainWindow::selectedRuns() const
{
    QStringList runIds;
    for (const QModelIndex &index : m_runTree->selectionModel()->selectedRows()) {
        const QString runId = index.data(RunTreeModel::RunIdRole).toString();
        if (!runId.isEmpty())
            runIds.append(runId);
    }
    return runIds;
}

void MainWindow::cancelSelectedRuns()
{
    const QStringList runIds = selectedRuns();
    if (runIds.isEmpty())
        return statusBar()->showMessage(tr("Select the runs to cancel first."), 5000);
    m_runView->actions()->cancel(runIds);
}

NewJobDialog *MainWindow::openNewJob()
{
    auto *dialog = new NewJobDialog(m_agent, m_clusters->names(), selectedCluster(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &NewJobDialog::submitted, this, [this](const LaunchResult &result) {
        updateRunRow(result.runId);
        selectRun(result.runId);
    });
    connect(dialog, &NewJobDialog::sweepSubmitted, this, [this](const QString &sweepId) {
        reloadRuns();
        openSweeps(sweepId);
    });
    dialog->show();
    return dialog;
}

SweepsWindow *MainWindow::openSweeps(const QString &sweepId)
{
    if (!m_sweepsWindow) {
        m_sweepsWindow = new SweepsWindow(m_agent, &m_store, this);
        m_sweepsWindow->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_sweepsWindow, &SweepsWindow::overlayRequested, this, &MainWindow::selectRuns);
    }
    m_sweepsWindow->refresh();
    if (!sweepId.isEmpty())
        m_sweepsWindow->showSweep(sweepId);
    m_sweepsWindow->show();
    m_sweepsWindow->raise();
    return m_sweepsWindow;
}

void MainWindow::overlaySelectedRuns()
{
    QStringList others;
    const QString shown = m_runView->runId();
    for (const QModelIndex &row : m_runTree->selectionModel()->selectedRows()) {
        const QString runId = row.data(RunTreeModel::RunIdRole).toString();
        if (!runId.isEmpty() && runId != shown)
            others.append(runId);
    }
    if (others != m_runView->chartsPanel()->comparedRuns())
        m_runView->chartsPanel()->compareWith(others);
}

void MainWindow::restoreState()
{
    const QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1280, 760); // fits a 1366x768 laptop screen
    QMainWindow::restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!m_runSplitter->restoreState(settings.value(QStringLiteral("window/runSplitter")).toByteArray()))
        m_runSplitter->setSizes({150, 610}); // the run view gets the room on a 768-pixel screen
    if (!m_listSplitter->restoreState(settings.value(QStringLiteral("window/listSplitter")).toByteArray())) {
        const int clusters = std::min(m_clusterPane->fittingWidth(), width() / 4);
        m_listSplitter->setSizes({clusters, width() - clusters});
    }
    if (!m_runTree->header()->restoreState(settings.value(QStringLiteral("window/runTreeColumns")).toByteArray())) {
        const int widths[] = {200, 90, 90, 60, 70, 90, 130}; // the run's name first; Updated stretches
        for (int column = 0; column < int(std::size(widths)); ++column)
            m_runTree->header()->resizeSection(column, widths[column]);
    }
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() != QEvent::WindowStateChange)
        return;
    // Minimized: nothing is read for the window, and its clusters are polled at the agent's own slow rate.
    const bool minimized = isMinimized();
    m_runView->setOnScreen(!minimized);
    m_agent->setPollInterval(minimized ? 0 : m_windowPollMs);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/listSplitter"), m_listSplitter->saveState());
    settings.setValue(QStringLiteral("window/runSplitter"), m_runSplitter->saveState());
    settings.setValue(QStringLiteral("window/runTreeColumns"), m_runTree->header()->saveState());
    QMainWindow::closeEvent(event);
}

} // namespace torchdeck
