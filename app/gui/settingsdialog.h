#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace torchdeck {

class AgentClient;

// Settings of the agent: "Keep watching my runs after I log in" (a systemd user unit, or an XDG autostart
// entry where there is no user manager: core/agent/agentautostart.h) and how long it stays with no window,
// no terminal command and no unfinished run; what it holds now is shown below.
class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(AgentClient *agent, QWidget *parent = nullptr);

    QCheckBox *keepWatching() const { return m_keepWatching; }
    QSpinBox *idleMinutes() const { return m_idleMinutes; }
    QString statusText() const;

private:
    void apply();
    void showStatus();

    AgentClient *m_agent;
    QCheckBox *m_keepWatching;
    QSpinBox *m_idleMinutes;
    QLabel *m_status;
    QLabel *m_problem;
};

} // namespace torchdeck
