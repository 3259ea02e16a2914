#pragma once

#include <QDialog>
#include <QStringList>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace torchdeck {

class ProfileStore;

// Log patterns tried on a run's actual log: as the cluster's patterns are typed, the list shows which lines
// they read and what each line gives (docs/metrics-schema.md); Save puts them in the cluster's profile, for
// the custom commands of that cluster from their next read on.
class LogPatternDialog : public QDialog {
    Q_OBJECT
public:
    // `jobPatterns`: the run's own (--log-pattern), tried first and not edited here.
    LogPatternDialog(ProfileStore *profiles, const QString &cluster, const QStringList &jobPatterns, const QString &log,
                     QWidget *parent = nullptr);

    QPlainTextEdit *patternEdit() const { return m_patterns; }
    QTreeWidget *matches() const { return m_matches; }
    QString statusText() const;
    QStringList patterns() const;    // the edited ones, one a line
    void setLog(const QString &log); // the log's end read since the dialog opened
    bool save();

signals:
    void saved(const QString &cluster);

private:
    void takeLog(const QString &log);
    void evaluate();

    ProfileStore *m_profiles;
    QString m_cluster;
    QStringList m_jobPatterns;
    QStringList m_lines; // the log's last lines
    QPlainTextEdit *m_patterns;
    QTreeWidget *m_matches;
    QLabel *m_status;
    QPushButton *m_save;
};

} // namespace torchdeck
