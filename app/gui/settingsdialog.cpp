#include "gui/settingsdialog.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentautostart.h"
#include "core/agent/agentops.h"
#include "core/agent/agentpaths.h"
#include "core/appidentity.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace torchdeck {

SettingsDialog::SettingsDialog(AgentClient *agent, QWidget *parent)
    : QDialog(parent)
    , m_agent(agent)
    , m_keepWatching(new QCheckBox(tr("&Keep watching my runs after I log in")))
    , m_idleMinutes(new QSpinBox)
    , m_status(new QLabel)
    , m_problem(new QLabel)
{
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    m_keepWatching->setObjectName(QStringLiteral("keepWatching"));
    m_keepWatching->setChecked(!installedAutostart().isEmpty());
    m_keepWatching->setToolTip(tr("Starts the torchdeck agent when you log in, so runs that stop at their wall time "
                                  "are restarted although no window was opened since"));
    m_idleMinutes->setRange(0, 7 * 24 * 60);
    m_idleMinutes->setSuffix(tr(" min"));
    m_idleMinutes->setValue(agentIdleExitMinutes());
    m_idleMinutes->setToolTip(tr("How long the agent stays once no window or terminal command is attached and no run "
                                 "is unfinished"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #d04040;"));
    auto *form = new QFormLayout;
    form->addRow(m_keepWatching);
    form->addRow(tr("Stop the idle agent after"), m_idleMinutes);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::apply);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    showStatus();
}

QString SettingsDialog::statusText() const
{
    return m_status->text();
}

void SettingsDialog::showStatus()
{
    m_status->setText(tr("Asking the agent\u2026"));
    SessionOperation *asked = m_agent->status();
    connect(asked, &SessionOperation::failed, this,
            [this](const QString &error) { m_status->setText(tr("No agent: %1").arg(error)); });
    onReply<agent::Status>(asked, this, [this](const agent::Status::Reply &reply) {
        const AgentStatus *status = &reply.status;
        QStringList clusters;
        for (const AgentClusterStatus &c : status->clusters)
            clusters.append(
                tr("%1: %2, %n run(s) watched", nullptr, c.runsWatched).arg(c.name, connectionStateName(c.state)));
        m_status->setText(
            tr("The agent (process %1) holds %n front(s) and these clusters:", nullptr, int(status->clients.size()))
                .arg(status->pid) +
            u'\n' + (clusters.isEmpty() ? tr("none yet") : clusters.join(u'\n')));
    });
}

void SettingsDialog::apply()
{
    setAgentIdleExitMinutes(m_idleMinutes->value());
    const bool wanted = m_keepWatching->isChecked();
    if (wanted != !installedAutostart().isEmpty()) {
        const QString error = setAutostart(wanted, QCoreApplication::applicationFilePath(), dataDirectory());
        if (!error.isEmpty())
            return m_problem->setText(error);
    }
    accept();
}

} // namespace torchdeck
