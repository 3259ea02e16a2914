#pragma once

#include "gui/logfollower.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace torchdeck {

// The live log of a job: the end of its stdout read periodically while it is shown and its job runs, a follow
// toggle (keep the end in view, read on) and a search box (Enter finds the next match, Shift+Enter the previous).
class LogPanel : public QWidget {
    Q_OBJECT
public:
    explicit LogPanel(QWidget *parent = nullptr);

    void follow(AgentClient *agent, const QString &cluster, const QString &path, bool growing,
                const std::optional<QByteArray> &kept = std::nullopt);
    void setShown(bool shown); // its tab is current and the window on screen
    void setFollowing(bool on);
    bool isFollowing() const;
    LogFollower *follower() { return &m_follower; }
    QString text() const;
    void find(bool backwards = false);
    void focusSearch();

private:
    void show(const QString &text);
    void applyActive();

    LogFollower m_follower;
    QLabel *m_path;
    QCheckBox *m_followBox;
    QLineEdit *m_search;
    QPlainTextEdit *m_text;
    bool m_shown = false;
};

} // namespace torchdeck
