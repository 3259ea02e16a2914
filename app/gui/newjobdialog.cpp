#include "gui/newjobdialog.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "client/startplacement.h"
#include "core/profiles/profilestore.h"
#include "core/runs/runbudget.h"
#include "gui/jobform.h"
#include "gui/jobtemplatebar.h"
#include "gui/restartfields.h"
#include "gui/scriptpreview.h"
#include "gui/submissionpanel.h"
#include "gui/sweepdialog.h"
#include "gui/walltimebudgetlabel.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QUuid>
#include <QVBoxLayout>

namespace torchdeck {

namespace {
const char *const lastSpecKey = "newJob/lastSpec";
const char *const lastClusterKey = "newJob/lastCluster";
const char *const geometryKey = "newJob/geometry";
} // namespace

NewJobDialog::NewJobDialog(AgentClient *agent, const QStringList &clusters, const QString &cluster, QWidget *parent)
    : QDialog(parent)
    , m_agent(agent)
    , m_cluster(new QComboBox)
    , m_form(new JobForm)
    , m_panel(new SubmissionPanel)
    , m_anyOf(new QPushButton(tr("Any &of\u2026")))
    , m_templates(new JobTemplateBar(m_form))
    , m_runId(QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    m_form->setRenderer([this](const JobSpec &spec) { return render(spec); });
    setWindowTitle(tr("New job"));
    m_cluster->addItems(clusters);
    m_anyOf->setObjectName(QStringLiteral("anyOf"));
    m_anyOf->setToolTip(tr("Offer the run to further clusters too: each is asked when the job would start, and it "
                           "goes where it starts soonest"));
    auto *anyOf = new QMenu(m_anyOf);
    for (const QString &name : clusters) {
        QAction *candidate = anyOf->addAction(name);
        candidate->setCheckable(true);
        connect(candidate, &QAction::toggled, this, &NewJobDialog::updateAnyOf);
    }
    m_anyOf->setMenu(anyOf);
    m_anyOf->setEnabled(clusters.size() > 1);
    auto *clusterRow = new QHBoxLayout;
    clusterRow->addWidget(m_cluster, 1);
    clusterRow->addWidget(m_anyOf);
    auto *top = new QFormLayout;
    top->addRow(tr("C&luster"), clusterRow);
    top->addRow(tr("Template"), m_templates);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_submit = buttons->addButton(tr("&Submit"), QDialogButtonBox::AcceptRole);
    m_submit->setDefault(true);
    m_sweep = buttons->addButton(tr("S&weep…"), QDialogButtonBox::ActionRole);
    m_sweep->setObjectName(QStringLiteral("sweepButton"));
    m_sweep->setToolTip(tr("Run this job at every point of a grid: nodes and tasks per node for a scaling study, "
                           "learning rates, your command's variables"));
    connect(m_sweep, &QPushButton::clicked, this, &NewJobDialog::openSweep);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_submit, &QPushButton::clicked, this, &NewJobDialog::submit);
    // The profile was saved (the agent read the cluster's partitions on connecting or as it submitted, a check
    // found them, an edit): the form checks against it.
    connect(m_agent, &AgentClient::profilesFollowed, this, [this](const QStringList &followed) {
        if (!this->cluster().isEmpty() && followed.contains(this->cluster())) {
            applyProfile();
            updateButtons();
        }
    });

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_form);
    splitter->addWidget(m_panel);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);

    const QSettings settings;
    const QJsonObject last =
        QJsonDocument::fromJson(settings.value(QString::fromLatin1(lastSpecKey)).toByteArray()).object();
    if (!last.isEmpty()) {
        const JobSpec::FromJson restored = JobSpec::fromJson(last);
        if (restored.ok())
            m_form->setSpec(restored.spec);
    }
    const QString remembered = settings.value(QString::fromLatin1(lastClusterKey)).toString();
    setCluster(cluster.isEmpty() ? remembered : cluster);
    if (!restoreGeometry(settings.value(QString::fromLatin1(geometryKey)).toByteArray()))
        resize(1100, 720);

    connect(m_cluster, &QComboBox::currentTextChanged, this, &NewJobDialog::clusterChanged);
    connect(m_form, &JobForm::specChanged, this, &NewJobDialog::updateButtons);
    m_budgetTimer.setSingleShot(true);
    m_budgetTimer.setInterval(200);
    connect(&m_budgetTimer, &QTimer::timeout, this, &NewJobDialog::updateBudget);
    connect(m_form, &JobForm::specChanged, &m_budgetTimer, qOverload<>(&QTimer::start));
    connect(m_form->scriptPreview(), &ScriptPreview::editRequested, this, &NewJobDialog::editScript);
    connect(m_panel, &SubmissionPanel::refused, this, &NewJobDialog::showRefusal);
    connect(m_panel, &SubmissionPanel::failed, this, &NewJobDialog::updateButtons);
    connect(m_panel, &SubmissionPanel::submitted, this, [this](const LaunchResult &result) {
        // The script named this run's directory: another submission is another run, from the fields again.
        m_runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        m_form->scriptPreview()->revert();
        m_form->refreshPreview();
        updateButtons();
        emit submitted(result);
    });
    connect(this, &QDialog::finished, this,
            [this] { QSettings().setValue(QString::fromLatin1(geometryKey), saveGeometry()); });
    clusterChanged();
}

QString NewJobDialog::cluster() const
{
    return m_cluster->currentText();
}

void NewJobDialog::setCluster(const QString &cluster)
{
    const int index = m_cluster->findText(cluster);
    if (index >= 0)
        m_cluster->setCurrentIndex(index);
}

QStringList NewJobDialog::alsoOn() const
{
    QStringList chosen;
    for (const QAction *candidate : m_anyOf->menu()->actions())
        if (candidate->isChecked() && candidate->text() != cluster())
            chosen.append(candidate->text());
    return chosen;
}

void NewJobDialog::setAlsoOn(const QStringList &clusters)
{
    for (QAction *candidate : m_anyOf->menu()->actions())
        candidate->setChecked(clusters.contains(candidate->text()));
    updateAnyOf();
}

void NewJobDialog::updateAnyOf()
{
    for (QAction *candidate : m_anyOf->menu()->actions())
        candidate->setVisible(candidate->text() != cluster());
    const QStringList chosen = alsoOn();
    m_anyOf->setText(chosen.isEmpty() ? tr("Any &of\u2026") : tr("Any &of: %1").arg(chosen.join(QStringLiteral(", "))));
    m_form->restartFields()->setMoveAllowed(!chosen.isEmpty());
}

void NewJobDialog::clusterChanged()
{
    updateAnyOf();
    m_form->scriptPreview()->revert(); // an edited script was rendered for the other cluster
    disconnect(m_workDirectoryLink);
    m_refused.clear();
    applyProfile();
    if (!cluster().isEmpty()) {
        // The preview is the submission once the cluster says where its work directory is.
        m_workDirectoryLink = connect(m_agent, &AgentClient::workDirectoryKnown, this, [this](const QString &known) {
            if (known == cluster())
                m_form->refreshPreview();
        });
        m_agent->open(cluster());
    }
    m_form->refreshPreview();
    updateButtons();
    updateBudget();
}

LaunchRequest NewJobDialog::request(const JobSpec &spec, const QString &script) const
{
    LaunchRequest request = newRunRequest(m_agent->profiles()->profile(cluster()), spec, script);
    request.runId = m_runId;
    return request;
}

ScriptResult NewJobDialog::render(const JobSpec &spec) const
{
    if (cluster().isEmpty())
        return renderJobScript(spec, m_form->caps());
    const SubmissionScript rendered = m_agent->previewSubmission(request(spec));
    return {rendered.script, rendered.errors};
}

void NewJobDialog::updateBudget()
{
    m_budgetTimer.stop();
    RunStore *store = m_agent->store();
    if (!store || cluster().isEmpty())
        return m_form->budgetLabel()->setBudget({});
    m_form->budgetLabel()->setBudget(budgetFromEarlierRun(*store, cluster(), m_form->spec()));
}

void NewJobDialog::applyProfile()
{
    const ClusterProfile profile = m_agent->profiles()->profile(cluster());
    m_form->setCaps(cluster().isEmpty() ? ClusterCaps{} : profile.caps());
    m_form->restartFields()->setCluster(profile);
    if (!m_refused.isEmpty() && m_form->spec() == m_sent) // the checks of setCaps do not clear a refusal
        m_form->showRefusal(m_refused);
}

void NewJobDialog::showRefusal(const QList<JobSpecError> &errors)
{
    m_refused = errors;
    if (m_form->spec() == m_sent) // not fields changed since it was sent
        m_form->showRefusal(errors);
    updateButtons();
}

void NewJobDialog::updateButtons()
{
    m_submit->setEnabled(!cluster().isEmpty() && m_form->errors().isEmpty() && !m_panel->isRunning());
    m_sweep->setEnabled(!cluster().isEmpty() && m_form->errors().isEmpty());
}

SweepDialog *NewJobDialog::openSweep()
{
    auto *dialog = new SweepDialog(m_agent, cluster(), m_form->spec(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &SweepDialog::sweepSubmitted, this, &NewJobDialog::sweepSubmitted);
    dialog->show();
    return dialog;
}

void NewJobDialog::submit()
{
    if (cluster().isEmpty() || !m_form->errors().isEmpty() || m_panel->isRunning())
        return;
    const JobSpec spec = m_form->spec();
    QSettings settings;
    settings.setValue(QString::fromLatin1(lastSpecKey), QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    settings.setValue(QString::fromLatin1(lastClusterKey), cluster());
    ScriptPreview *preview = m_form->scriptPreview();
    // The planned run id: the directories the preview (edited or not) names are this run's.
    if (!alsoOn().isEmpty() && !preview->isEdited())
        return submitWhereSoonest(spec);
    const LaunchRequest planned = request(spec, preview->isEdited() ? preview->text() : QString());
    m_sent = spec;
    m_refused.clear();
    m_panel->follow(m_agent->submit(planned, m_form->chainLength()));
    updateButtons();
}

void NewJobDialog::submitWhereSoonest(const JobSpec &spec)
{
    const QString runId = m_runId;
    m_sent = spec;
    m_refused.clear();
    AgentClient *agent = m_agent;
    const auto requestFor = [agent, spec, runId](const QString &candidate) {
        LaunchRequest planned = newRunRequest(agent->profiles()->profile(candidate), spec);
        planned.runId = runId;
        return planned;
    };
    auto *placement = new StartPlacement(m_agent, QStringList{cluster()} + alsoOn(), requestFor, this);
    m_submit->setEnabled(false);
    connect(placement, &StartPlacement::asking, m_panel, [this](const QString &candidate) {
        m_panel->note(tr("Asking %1 when the job would start\u2026").arg(candidate));
    });
    connect(placement, &StartPlacement::placed, this, [this, placement, requestFor](const Placement &placed) {
        placement->deleteLater();
        m_panel->note(tr("When each cluster would start it:\n%1").arg(describeEstimates(placed).join(u'\n')));
        if (placed.chosen.isEmpty()) {
            m_panel->follow(SessionOperation::alreadyFailed(tr("none of the clusters can run the job"), this));
            return updateButtons();
        }
        m_panel->note(placementWhy(placed));
        LaunchRequest planned = requestFor(placed.chosen);
        planned.placement = placementJson(placed);
        m_panel->follow(m_agent->submit(planned, m_form->chainLength()));
        updateButtons();
    });
    placement->start();
}

void NewJobDialog::editScript()
{
    if (cluster().isEmpty() || !m_form->errors().isEmpty())
        return;
    ScriptPreview *preview = m_form->scriptPreview();
    if (!m_agent->workDirectory(cluster()).isEmpty())
        return preview->beginEditing(m_form->previewScript());
    preview->setBusy(tr("Connecting to %1 for the script as it will be submitted\u2026").arg(cluster()));
    // The agent connects and says where the work directory is; the preview then names every path.
    SessionOperation *work = m_agent->workDirectoryOf(cluster());
    connect(work, &SessionOperation::finished, this,
            [this, preview] { preview->beginEditing(m_form->previewScript()); });
    connect(work, &SessionOperation::failed, this, [this, preview](const QString &error) {
        preview->setBusy({});
        QMessageBox::warning(preview, tr("Cannot edit the script"),
                             tr("Cannot connect to %1: %2").arg(cluster(), error));
    });
}

} // namespace torchdeck
