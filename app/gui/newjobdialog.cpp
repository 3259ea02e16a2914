#include "gui/newjobdialog.h"

#include "gui/clustersessions.h"
#include "gui/jobform.h"
#include "gui/jobtemplatebar.h"
#include "gui/resumerequest.h"
#include "gui/scriptpreview.h"
#include "gui/submissionpanel.h"
#include "gui/walltimebudgetlabel.h"
#include "remote/runbudget.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonDocument>
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

NewJobDialog::NewJobDialog(ClusterSessions *sessions, const QStringList &clusters, const QString &cluster,
                           QWidget *parent)
    : QDialog(parent)
    , m_sessions(sessions)
    , m_cluster(new QComboBox)
    , m_form(new JobForm)
    , m_panel(new SubmissionPanel)
    , m_templates(new JobTemplateBar(m_form))
{
    setWindowTitle(tr("New job"));
    m_cluster->addItems(clusters);
    auto *top = new QFormLayout;
    top->addRow(tr("C&luster"), m_cluster);
    top->addRow(tr("Template"), m_templates);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_submit = buttons->addButton(tr("&Submit"), QDialogButtonBox::AcceptRole);
    m_submit->setDefault(true);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_submit, &QPushButton::clicked, this, &NewJobDialog::submit);

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
    connect(m_panel, &SubmissionPanel::failed, this, &NewJobDialog::updateButtons);
    connect(m_panel, &SubmissionPanel::submitted, this, [this](const remote::LaunchResult &result) {
        // The edited script names this run's directory: another submission starts from the fields again.
        m_form->scriptPreview()->revert();
        m_editedRunId.clear();
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

void NewJobDialog::clusterChanged()
{
    m_form->scriptPreview()->revert(); // an edited script was rendered for the other cluster
    const ClusterProfile profile = m_sessions->profiles()->profile(cluster());
    ClusterCaps caps;
    caps.scheduler = profile.scheduler;
    caps.pbsDialect = profile.pbsDialect;
    m_form->setCaps(caps);
    updateButtons();
    updateBudget();
}

void NewJobDialog::updateBudget()
{
    m_budgetTimer.stop();
    RunStore *store = m_sessions->store();
    if (!store || cluster().isEmpty())
        return m_form->budgetLabel()->setBudget({});
    m_form->budgetLabel()->setBudget(remote::budgetFromEarlierRun(*store, cluster(), m_form->spec()));
}

void NewJobDialog::updateButtons()
{
    m_submit->setEnabled(!cluster().isEmpty() && m_form->errors().isEmpty() && !m_panel->isRunning());
}

void NewJobDialog::submit()
{
    if (cluster().isEmpty() || !m_form->errors().isEmpty() || m_panel->isRunning())
        return;
    const JobSpec spec = m_form->spec();
    QSettings settings;
    settings.setValue(QString::fromLatin1(lastSpecKey), QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact));
    settings.setValue(QString::fromLatin1(lastClusterKey), cluster());
    ClusterSession *session = m_sessions->session(cluster());
    ScriptPreview *preview = m_form->scriptPreview();
    remote::LaunchRequest request =
        newRunRequest(session->profile(), spec, preview->isEdited() ? preview->text() : QString());
    if (preview->isEdited())
        request.runId = m_editedRunId; // the directories the script names
    m_panel->start(session, m_sessions->store(), request);
    updateButtons();
}

void NewJobDialog::editScript()
{
    if (cluster().isEmpty() || !m_form->errors().isEmpty())
        return;
    ScriptPreview *preview = m_form->scriptPreview();
    ClusterSession *session = m_sessions->session(cluster());
    preview->setBusy(tr("Connecting to %1 for the script as it will be submitted\u2026").arg(cluster()));
    remote::LaunchRequest request = newRunRequest(session->profile(), m_form->spec());
    request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QPointer<ClusterSession> guarded = session;
    session->whenConnected(
        this,
        [this, guarded, request, preview] {
            if (!guarded)
                return;
            auto *launcher = new remote::RunLauncher(guarded->connection(), m_sessions->store(), this);
            connect(launcher, &remote::RunLauncher::rendered, this,
                    [this, launcher, request, preview](const QString &script) {
                        launcher->deleteLater();
                        m_editedRunId = request.runId;
                        preview->beginEditing(script);
                    });
            connect(launcher, &remote::RunLauncher::failed, this, [launcher, preview](const QString &error) {
                launcher->deleteLater();
                preview->setBusy({});
                QMessageBox::warning(preview, tr("Cannot edit the script"), error);
            });
            launcher->preview(request);
        },
        [this, preview](const QString &error) {
            preview->setBusy({});
            QMessageBox::warning(preview, tr("Cannot edit the script"),
                                 tr("Cannot connect to %1: %2").arg(cluster(), error));
        });
}

} // namespace torchdeck
