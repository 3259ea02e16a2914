#include "gui/sweepdialog.h"

#include "client/agentclient.h"
#include "core/profiles/profilestore.h"
#include "gui/submissionpanel.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QUuid>
#include <QVBoxLayout>

namespace torchdeck {

namespace {
constexpr int startingRows = 3;
} // namespace

SweepDialog::SweepDialog(AgentClient *agent, const QString &cluster, const JobSpec &base, QWidget *parent)
    : QDialog(parent)
    , m_agent(agent)
    , m_cluster(cluster)
    , m_base(base)
    , m_axes(new QTableWidget(startingRows, 2))
    , m_maxRunning(new QSpinBox)
    , m_separate(new QCheckBox(tr("A job per point, not one job array")))
    , m_summary(new QLabel)
    , m_panel(new SubmissionPanel)
{
    setWindowTitle(tr("Sweep %1 on %2").arg(base.name, cluster));
    m_axes->setObjectName(QStringLiteral("sweepAxes"));
    m_axes->setHorizontalHeaderLabels({tr("Setting"), tr("Values, comma-separated")});
    m_axes->horizontalHeader()->setStretchLastSection(true);
    m_axes->setToolTip(tr("A setting per row: nodes, tasks-per-node, gpus-per-node, cpus-per-task, time, partition, "
                          "memory, a trainer option such as lr or batch-size, or env:NAME for your command's "
                          "variable. The sweep runs every combination."));
    auto *addRow = new QPushButton(tr("Add a setting"));
    connect(addRow, &QPushButton::clicked, this, [this] { m_axes->insertRow(m_axes->rowCount()); });
    m_maxRunning->setObjectName(QStringLiteral("maxRunning"));
    m_maxRunning->setRange(0, 10000);
    m_maxRunning->setSpecialValueText(tr("no limit"));
    m_maxRunning->setToolTip(tr("How many points of the job array run at a time (Slurm's %N)"));
    m_summary->setObjectName(QStringLiteral("sweepSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    form->addRow(tr("At most running"), m_maxRunning);
    form->addRow(QString(), m_separate);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_submit = buttons->addButton(tr("&Submit the sweep"), QDialogButtonBox::AcceptRole);
    m_submit->setObjectName(QStringLiteral("submitSweep"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_submit, &QPushButton::clicked, this, &SweepDialog::submit);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_axes, 1);
    layout->addWidget(addRow, 0, Qt::AlignLeft);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(m_panel);
    layout->addWidget(buttons);
    resize(720, 560);

    m_update.setSingleShot(true);
    m_update.setInterval(250); // a preview per point: not at every keystroke
    connect(&m_update, &QTimer::timeout, this, &SweepDialog::updateSummary);
    connect(m_axes, &QTableWidget::cellChanged, &m_update, qOverload<>(&QTimer::start));
    connect(m_maxRunning, &QSpinBox::valueChanged, &m_update, qOverload<>(&QTimer::start));
    connect(m_separate, &QCheckBox::toggled, &m_update, qOverload<>(&QTimer::start));
    connect(m_panel, &SubmissionPanel::failed, this, &SweepDialog::updateSummary);
    connect(m_panel, &SubmissionPanel::submitted, this, [this] {
        updateSummary();
        emit sweepSubmitted(m_sweepId);
    });
    updateSummary();
}

void SweepDialog::setAxis(int row, const QString &name, const QString &values)
{
    while (m_axes->rowCount() <= row)
        m_axes->insertRow(m_axes->rowCount());
    m_axes->setItem(row, 0, new QTableWidgetItem(name));
    m_axes->setItem(row, 1, new QTableWidgetItem(values));
    updateSummary();
}

QString SweepDialog::summary() const
{
    return m_summary->text();
}

SweepDialog::Plan SweepDialog::plan() const
{
    Plan plan;
    for (int row = 0; row < m_axes->rowCount(); ++row) {
        const QString name = m_axes->item(row, 0) ? m_axes->item(row, 0)->text().trimmed() : QString();
        const QString values = m_axes->item(row, 1) ? m_axes->item(row, 1)->text().trimmed() : QString();
        if (name.isEmpty() && values.isEmpty())
            continue;
        const std::optional<SweepAxis> axis = parseSweepAxis(name + u'=' + values, &plan.planned.problem);
        if (!axis)
            return plan;
        plan.axes.append(*axis);
    }
    if (plan.axes.isEmpty()) {
        plan.planned.problem = tr("Give a setting and its values in the table (e.g. lr and 0.1, 0.01).");
        return plan;
    }
    const SweepPlanRequest request{m_agent->profiles()->profile(m_cluster), m_base, plan.axes, m_separate->isChecked(),
                                   m_maxRunning->value()};
    // A point's problems as sentences: the dialog has no field of the job's to mark.
    plan.planned = planSweep(
        request, [this](const LaunchRequest &run) { return m_agent->previewSubmission(run); }, describeJobSpecErrors);
    return plan;
}

void SweepDialog::updateSummary()
{
    m_update.stop();
    const SweepPlan planned = plan().planned;
    if (!planned.ok()) {
        m_summary->setText(planned.problem);
        m_summary->setStyleSheet(QStringLiteral("color: #d04040;"));
    } else {
        const QString hours = planned.nodeSeconds > 0
                                  ? tr("%1 node-hours at most").arg(planned.nodeSeconds / 3600.0, 0, 'f', 2)
                                  : tr("node-hours unknown (no wall time)");
        const QString how =
            planned.notArray.isEmpty()
                ? tr("one job array") + (m_maxRunning->value() > 0
                                             ? tr(", at most %1 running at a time").arg(m_maxRunning->value())
                                             : QString())
                : tr("a job per point (not one array: %1)").arg(planned.notArray);
        m_summary->setText(tr("%1 points, %2; %3").arg(planned.points.size()).arg(hours, how));
        m_summary->setStyleSheet({});
    }
    m_submit->setEnabled(planned.ok() && !m_panel->isRunning());
}

void SweepDialog::submit()
{
    const Plan planned = plan();
    if (!planned.planned.ok() || m_panel->isRunning())
        return updateSummary();
    m_sweepId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const SweepRecord sweep{m_sweepId, m_cluster, m_base.name, {}, sweepAxesJson(planned.axes)};
    m_panel->follow(
        m_agent->submitSweep(sweep, planned.planned.requests(), planned.planned.asArray(), m_maxRunning->value()));
    m_submit->setEnabled(false);
}

} // namespace torchdeck
