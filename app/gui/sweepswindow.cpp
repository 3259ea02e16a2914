#include "gui/sweepswindow.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/profiles/profilestore.h"
#include "core/runs/launchrequest.h"
#include "core/store/runstore.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMessageBox>
#include <QPushButton>
#include <QScatterSeries>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>

namespace torchdeck {

SweepsWindow::SweepsWindow(AgentClient *agent, RunStore *store, QWidget *parent)
    : QDialog(parent)
    , m_agent(agent)
    , m_store(store)
    , m_sweeps(new QComboBox)
    , m_title(new QLabel)
    , m_action(new QLabel)
    , m_table(new QTableWidget)
    , m_chart(new QChartView)
{
    setWindowTitle(tr("Sweeps"));
    m_sweeps->setObjectName(QStringLiteral("sweepList"));
    m_table->setObjectName(QStringLiteral("sweepTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_chart->setObjectName(QStringLiteral("speedupChart"));
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(220);
    auto *overlay = new QPushButton(tr("&Overlay their curves"));
    overlay->setObjectName(QStringLiteral("overlaySweep"));
    overlay->setToolTip(tr("Select the sweep's runs in the run list: the run view overlays their charts"));
    auto *markdown = new QPushButton(tr("Copy as &Markdown"));
    auto *csv = new QPushButton(tr("Save as &CSV\u2026"));
    auto *cancel = new QPushButton(tr("Cancel its runs\u2026"));
    auto *resume = new QPushButton(tr("Res&ume the unfinished"));
    resume->setObjectName(QStringLiteral("resumeSweep"));
    resume->setToolTip(tr("Every run that ended short of completing goes on from its latest checkpoint"));
    auto *remove = new QPushButton(tr("&Delete\u2026"));
    remove->setObjectName(QStringLiteral("deleteSweep"));
    remove->setToolTip(tr("Remove the ended sweep and its runs from this machine; their files stay on the cluster"));
    m_action->setObjectName(QStringLiteral("sweepAction"));
    m_action->setWordWrap(true);
    auto *reload = new QPushButton(tr("&Refresh"));
    connect(overlay, &QPushButton::clicked, this, [this] {
        QStringList ids;
        for (const SweepRow &row : std::as_const(m_rows))
            ids.append(row.runId);
        emit overlayRequested(ids);
    });
    connect(markdown, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(sweepMarkdown(m_rows)); });
    connect(csv, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save the sweep's table"),
                                         m_sweeps->currentText().section(u' ', 0, 0) + u".csv", tr("CSV (*.csv)"));
        QFile file(path);
        if (!path.isEmpty() && (!file.open(QIODevice::WriteOnly) || file.write(sweepCsv(m_rows).toUtf8()) < 0))
            QMessageBox::warning(this, tr("Cannot save"), file.errorString());
    });
    connect(cancel, &QPushButton::clicked, this, &SweepsWindow::cancelAll);
    connect(resume, &QPushButton::clicked, this, &SweepsWindow::resumeUnfinished);
    connect(remove, &QPushButton::clicked, this, [this] {
        const SweepRecord *sweep = shownSweep();
        if (sweep && QMessageBox::question(this, tr("Delete the sweep"),
                                           tr("Remove sweep %1 and its %2 runs from this machine? Their directories "
                                              "stay on %3.")
                                               .arg(sweep->name)
                                               .arg(m_rows.size())
                                               .arg(sweep->cluster)) == QMessageBox::Yes)
            deleteShown();
    });
    connect(reload, &QPushButton::clicked, this, &SweepsWindow::refresh);
    connect(m_sweeps, &QComboBox::currentIndexChanged, this, &SweepsWindow::showRows);
    auto *actions = new QHBoxLayout;
    for (QPushButton *button : {overlay, markdown, csv, cancel, resume, remove})
        actions->addWidget(button);
    actions->addStretch(1);
    actions->addWidget(reload);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_sweeps);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_action);
    layout->addLayout(actions);
    resize(980, 640);
    refresh();
}

QString SweepsWindow::sweepId() const
{
    return m_sweeps->currentData().toString();
}

void SweepsWindow::refresh()
{
    const QString shown = sweepId();
    const auto sweeps = m_store->sweeps();
    m_records = sweeps.ok() ? sweeps.value : QList<SweepRecord>{};
    const QSignalBlocker quiet(m_sweeps);
    m_sweeps->clear();
    for (const SweepRecord &sweep : std::as_const(m_records))
        m_sweeps->addItem(tr("%1 (%2) on %3, %4")
                              .arg(sweep.name, sweep.id.left(8), sweep.cluster,
                                   QLocale().toString(sweep.created.toLocalTime(), QLocale::ShortFormat)),
                          sweep.id);
    showSweep(shown);
}

void SweepsWindow::showSweep(const QString &sweepId)
{
    const int index = m_sweeps->findData(sweepId);
    {
        const QSignalBlocker quiet(m_sweeps);
        m_sweeps->setCurrentIndex(index >= 0 ? index : 0);
    }
    showRows();
}

void SweepsWindow::showRows()
{
    m_rows.clear();
    const int index = m_sweeps->currentIndex();
    if (index < 0 || index >= m_records.size()) {
        m_title->setText(tr("No sweep yet: \"Sweep\u2026\" in the new-job dialog, or torchdeck sweep."));
        m_table->clear();
        m_table->setRowCount(0);
        showChart();
        return;
    }
    const SweepRecord &sweep = m_records.at(index);
    const auto members = m_store->sweepMembers(sweep.id);
    QList<RunRecord> runs;
    for (const SweepMember &member : members.value) {
        const auto run = m_store->run(member.runId);
        if (run.ok() && run.value)
            runs.append(*run.value);
    }
    m_rows = sweepRowsOf(*m_store, sweep, members.value, runs);
    const bool scaling = isScalingSweep(sweep);
    m_title->setText(scaling ? tr("Scaling: speedup and efficiency against the fewest ranks")
                             : tr("Hyperparameters: the best validation loss first"));
    const QStringList header = sweepTableHeader(m_rows);
    m_table->clear();
    m_table->setColumnCount(int(header.size()));
    m_table->setHorizontalHeaderLabels(header);
    m_table->setRowCount(int(m_rows.size()));
    for (int row = 0; row < m_rows.size(); ++row) {
        const QStringList cells = sweepTableCells(m_rows.at(row));
        for (int column = 0; column < cells.size(); ++column)
            m_table->setItem(row, column, new QTableWidgetItem(cells.at(column)));
    }
    showChart();
    m_chart->setVisible(scaling);
}

void SweepsWindow::showChart()
{
    auto *chart = new QChart;
    chart->setTitle(tr("Speedup against ranks"));
    auto *measured = new QLineSeries;
    measured->setName(tr("measured"));
    auto *points = new QScatterSeries;
    points->setMarkerSize(8);
    auto *ideal = new QLineSeries;
    ideal->setName(tr("ideal"));
    ideal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    int baseRanks = 0;
    int mostRanks = 1;
    double mostSpeedup = 1;
    for (const SweepRow &row : std::as_const(m_rows)) {
        if (std::isnan(row.speedup))
            continue;
        baseRanks = baseRanks == 0 ? row.ranks : std::min(baseRanks, row.ranks); // the base has the fewest
        measured->append(row.ranks, row.speedup);
        points->append(row.ranks, row.speedup);
        mostRanks = std::max(mostRanks, row.ranks);
        mostSpeedup = std::max(mostSpeedup, row.speedup);
    }
    if (baseRanks > 0) {
        ideal->append(baseRanks, 1.0);
        ideal->append(mostRanks, double(mostRanks) / baseRanks);
    }
    for (QAbstractSeries *series : std::initializer_list<QAbstractSeries *>{ideal, measured, points})
        chart->addSeries(series);
    chart->legend()->markers(points).constFirst()->setVisible(false);
    auto *x = new QValueAxis;
    x->setTitleText(tr("ranks"));
    x->setRange(0, mostRanks + 1);
    x->setLabelFormat(QStringLiteral("%d"));
    auto *y = new QValueAxis;
    y->setTitleText(tr("speedup"));
    y->setRange(0, std::max(mostSpeedup, baseRanks > 0 ? double(mostRanks) / baseRanks : 1.0) * 1.1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *series : chart->series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    QChart *old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
}

const SweepRecord *SweepsWindow::shownSweep() const
{
    const int index = m_sweeps->currentIndex();
    return index >= 0 && index < m_records.size() ? &m_records.at(index) : nullptr;
}

QString SweepsWindow::actionText() const
{
    return m_action->text();
}

void SweepsWindow::say(const QString &text)
{
    m_action->setText(text);
}

void SweepsWindow::cancelAll()
{
    if (!shownSweep() || m_rows.isEmpty())
        return;
    const SweepRecord &sweep = *shownSweep();
    if (QMessageBox::question(
            this, tr("Cancel the sweep"),
            tr("Cancel the unfinished jobs of the %1 runs of sweep %2?").arg(m_rows.size()).arg(sweep.name)) !=
        QMessageBox::Yes)
        return;
    QStringList ids;
    for (const SweepRow &row : std::as_const(m_rows))
        ids.append(row.runId);
    SessionOperation *cancel = m_agent->cancel(sweep.cluster, ids);
    connect(cancel, &SessionOperation::failed, this,
            [this](const QString &error) { QMessageBox::warning(this, tr("Cannot cancel the sweep"), error); });
    connect(cancel, &SessionOperation::finished, this, &SweepsWindow::refresh);
}

void SweepsWindow::resumeUnfinished()
{
    const SweepRecord *sweep = shownSweep();
    if (!sweep)
        return;
    say(tr("Looking at the sweep's runs on %1\u2026").arg(sweep->cluster));
    SessionOperation *resume = m_agent->resumeSweep(sweep->cluster, sweep->id);
    connect(resume, &SessionOperation::failed, this,
            [this](const QString &error) { say(tr("Nothing resumed: %1").arg(error)); });
    onReply<agent::ResumeSweep>(resume, this, [this](const agent::ResumeSweep::Reply &reply) {
        QStringList lines;
        if (reply.resumed.isEmpty() && reply.problems.isEmpty())
            lines.append(tr("Every run of the sweep has completed or still goes on: nothing to resume."));
        if (!reply.resumed.isEmpty()) {
            QStringList jobs;
            for (const LaunchResult &result : reply.resumed)
                jobs.append(tr("run %1 as job %2").arg(result.runId.left(8), result.jobId));
            lines.append(tr("Resumed %n run(s) from their latest checkpoints: %1", nullptr, int(jobs.size()))
                             .arg(jobs.join(QStringLiteral(", "))));
        }
        lines.append(reply.problems);
        say(lines.join(u'\n'));
        refresh();
    });
}

void SweepsWindow::deleteShown()
{
    const SweepRecord *shown = shownSweep();
    if (!shown)
        return;
    const SweepRecord sweep = *shown;
    // Decided on the store the agent keeps current with its polls, as the window shows it.
    SessionOperation *removal = m_agent->deleteSweep(sweep.cluster, sweep.id, false);
    connect(removal, &SessionOperation::failed, this,
            [this](const QString &error) { say(tr("Not deleted: %1").arg(error)); });
    onReply<agent::DeleteSweep>(removal, this, [this, sweep](const agent::DeleteSweep::Reply &reply) {
        refresh();
        say(tr("Sweep %1 deleted with its %2 runs from this machine; their directories stay on %3.")
                .arg(sweep.name)
                .arg(reply.runs)
                .arg(sweep.cluster));
    });
}

} // namespace torchdeck
