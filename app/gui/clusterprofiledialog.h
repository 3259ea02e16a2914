#pragma once

#include "core/profiles/clusterprofile.h"

#include <QDialog>
#include <QHash>

class QCheckBox;
class QComboBox;
class QPlainTextEdit;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace torchdeck {

class ProfileStore;

// Adds or edits one cluster profile: every ClusterProfile field, checked by core as the user types (the bad
// fields marked, the reasons below them), saved through the ProfileStore on Save. The alias of an existing
// profile is fixed: it names the ssh config host and the runs recorded on it.
class ClusterProfileDialog : public QDialog {
    Q_OBJECT
public:
    // An empty name: a new profile.
    ClusterProfileDialog(ProfileStore *store, const QString &name, QWidget *parent = nullptr);

    ClusterProfile profile() const;
    void setProfile(const ClusterProfile &profile);
    QStringList errorFields() const;
    QString errorText() const;
    // The ssh config's Host aliases: a name outside them gets a note (it is then used as the host name).
    void setSshAliases(const QStringList &aliases);
    QString noteText() const;
    QWidget *field(const QString &key) const { return m_fields.value(key); }
    bool save(); // validates, puts and writes the store; false with the reason shown

signals:
    void saved(const torchdeck::ClusterProfile &profile);

private:
    void update();

    ProfileStore *m_store;
    bool m_isNew;
    QStringList m_errorFields;
    QHash<QString, QWidget *> m_fields; // by JSON key, for marking errors

    QLineEdit *m_name;
    QComboBox *m_scheduler;
    QComboBox *m_pbsDialect;
    QComboBox *m_slurmHistory;
    QLineEdit *m_account;
    QLineEdit *m_partition;
    QLineEdit *m_workDirectory;
    QLineEdit *m_modules;
    QLineEdit *m_libtorch;
    QLineEdit *m_trainerBinary;
    QPlainTextEdit *m_logPatterns; // one regex a line
    QPlainTextEdit *m_reach;       // one CLUSTER=SSH ARGS a line (ClusterProfile::reach)
    QCheckBox *m_buildInJob;
    QSpinBox *m_buildCpus;
    QSpinBox *m_minPoll;
    ClusterProfile m_shown; // as set: its notice settings and what the check found are kept on save
    QStringList m_sshAliases;
    QLabel *m_note;
    QLabel *m_errors;
    QPushButton *m_save;
};

} // namespace torchdeck
