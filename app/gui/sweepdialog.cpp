#include "gui/sweepdialog.h"

#include "core/jobs/jobspecvalidation.h"
#include "core/profiles/profilestore.h"
#include "gui/submissionpanel.h"
#include "session/agentclient.h"

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
constexpr int mostSweepPoints = 500;
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
        const std::optional<SweepAxis> axis = parseSweepAxis(name + u'=' + values, &plan.problem);
        if (!axis)
            return plan;
        plan.axes.append(*axis);
    }
    if (plan.axes.isEmpty()) {
        plan.problem = tr("Give a setting and its values in the table (e.g. lr and 0.1, 0.01).");
        return plan;
    }
    const std::optional<QList<SweepPoint>> grid = sweepGrid(plan.axes, mostSweepPoints, &plan.problem);
    if (!grid)
        return plan;
    const ClusterProfile profile = m_agent->profiles()->profile(m_cluster);
    QList<SubmissionScript> previews;
    QStringList refusals;
    for (const SweepPoint &point : *grid) {
        std::optional<JobSpec> spec = m_base;
        for (const auto &[name, value] : point.values) {
            spec = specWithValue(*spec, name, value, &plan.problem);
            if (!spec)
                return plan;
        }
        spec->name = sweepPointName(m_base.name.isEmpty() ? QStringLiteral("sweep") : m_base.name, point);
        LaunchRequest request = newRunRequest(profile, *spec);
        request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        const SubmissionScript preview = m_agent->previewSubmission(request);
        if (!preview.ok())
            refusals.append(point.label() + QStringLiteral(": ") + formatJobSpecErrors(preview.errors));
        previews.append(preview);
        plan.nodeSeconds += double(spec->nodes) * double(spec->wallTimeSeconds);
        plan.points.append({sweepPointJson(point), request});
    }
    if (!refusals.isEmpty()) {
        plan.problem = tr("%1 of %2 points cannot run on %3:\n%4")
                           .arg(refusals.size())
                           .arg(plan.points.size())
                           .arg(m_cluster, refusals.join(u'\n'));
        return plan;
    }
    plan.notArray = m_separate->isChecked() ? tr("a job per point was asked for")
                                            : arrayRefusal(profile.caps(), previews, m_maxRunning->value());
    if (!plan.notArray.isEmpty() && m_maxRunning->value() > 0)
        plan.problem = tr("At most running needs one job array, and these points cannot be one: %1").arg(plan.notArray);
    return plan;
}

void SweepDialog::updateSummary()
{
    m_update.stop();
    const Plan planned = plan();
    if (!planned.problem.isEmpty()) {
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
    m_submit->setEnabled(planned.problem.isEmpty() && !m_panel->isRunning());
}

void SweepDialog::submit()
{
    const Plan planned = plan();
    if (!planned.problem.isEmpty() || m_panel->isRunning())
        return updateSummary();
    m_sweepId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const SweepRecord sweep{m_sweepId, m_cluster, m_base.name, {}, sweepAxesJson(planned.axes)};
    m_panel->follow(m_agent->submitSweep(sweep, planned.points, planned.notArray.isEmpty(), m_maxRunning->value()));
    m_submit->setEnabled(false);
}

} // namespace torchdeck
