#pragma once

#include <QWidget>

class QLineEdit;
class QPushButton;

namespace torchdeck {

class AgentClient;
struct RunRecord;

// Under the run view's header: the run's tags and note, edited in place (kept when the field is left or Enter is
// pressed), and "Rename…". Kept with the run by the agent (agent::AnnotateRun).
class RunNotesBar : public QWidget {
    Q_OBJECT
public:
    explicit RunNotesBar(AgentClient *agent, QWidget *parent = nullptr);

    void showRun(const RunRecord *run); // null: none
    QLineEdit *tagsEdit() const { return m_tags; }
    QLineEdit *noteEdit() const { return m_note; }
    void rename(const QString &name); // "Rename…" asks for the name

signals:
    void message(const QString &text);

private:
    void keepTags();
    void keepNote();

    AgentClient *m_agent;
    QLineEdit *m_tags;
    QLineEdit *m_note;
    QPushButton *m_rename;
    QString m_cluster;
    QString m_runId;
    QString m_name;
    QStringList m_shownTags;
    QString m_shownNote;
};

} // namespace torchdeck
