#include "gui/clusterprofiledialog.h"

#include "core/profiles/profilestore.h"
#include "core/profiles/profilevalidation.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace torchdeck {

namespace {
const char *const errorStyle = "border: 1px solid #d04040;";

// Modules are typed as one line, separated by blanks or commas (module names hold neither).
QStringList splitModules(const QString &text)
{
    static const QRegularExpression separators(QStringLiteral("[\\s,]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

// A short list typed one item a line: Tab moves on to the next field, and it stays `lines` high.
void setUpLineList(QPlainTextEdit *edit, const QString &placeholder, const QString &toolTip, int lines)
{
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(toolTip);
    edit->setTabChangesFocus(true);
    edit->setMaximumHeight(edit->fontMetrics().lineSpacing() * lines);
}
} // namespace

ClusterProfileDialog::ClusterProfileDialog(ProfileStore *store, const QString &name, QWidget *parent)
    : QDialog(parent)
    , m_store(store)
    , m_isNew(name.isEmpty())
    , m_name(new QLineEdit)
    , m_scheduler(new QComboBox)
    , m_pbsDialect(new QComboBox)
    , m_slurmHistory(new QComboBox)
    , m_account(new QLineEdit)
    , m_partition(new QLineEdit)
    , m_workDirectory(new QLineEdit)
    , m_modules(new QLineEdit)
    , m_libtorch(new QLineEdit)
    , m_trainerBinary(new QLineEdit)
    , m_logPatterns(new QPlainTextEdit)
    , m_reach(new QPlainTextEdit)
    , m_buildInJob(new QCheckBox(tr("Build the trainer in a short job (Slurm)")))
    , m_buildCpus(new QSpinBox)
    , m_minPoll(new QSpinBox)
    , m_note(new QLabel)
    , m_errors(new QLabel)
{
    setObjectName(QStringLiteral("clusterProfileDialog"));
    setWindowTitle(m_isNew ? tr("Add cluster") : tr("Cluster %1").arg(name));
    for (SchedulerKind kind : {SchedulerKind::Slurm, SchedulerKind::Pbs, SchedulerKind::Local})
        m_scheduler->addItem(schedulerKindName(kind), int(kind));
    m_pbsDialect->addItem(tr("PBS Pro"), int(PbsDialect::PbsPro));
    m_pbsDialect->addItem(tr("Torque"), int(PbsDialect::Torque));
    for (SlurmHistory history : {SlurmHistory::Accounting, SlurmHistory::CompletionFile, SlurmHistory::Controller})
        m_slurmHistory->addItem(slurmHistoryName(history), int(history));
    m_name->setPlaceholderText(tr("the Host alias of ~/.ssh/config"));
    m_name->setReadOnly(!m_isNew);
    m_partition->setPlaceholderText(tr("the scheduler's default"));
    m_account->setPlaceholderText(tr("none"));
    m_modules->setPlaceholderText(tr("e.g. gcc cmake cuda/12.2"));
    m_libtorch->setToolTip(tr("CMAKE_PREFIX_PATH of LibTorch on the cluster, or \"auto\" to look for one"));
    m_trainerBinary->setPlaceholderText(tr("empty: upload and build the bundled trainer"));
    m_buildCpus->setRange(1, 1024);
    m_minPoll->setRange(1, 3600);
    m_minPoll->setSuffix(tr(" s"));
    m_minPoll->setToolTip(tr("squeue, sacct or qstat run at most this often, whatever a window or watch asks: "
                             "sites limit how often users may ask. Metrics and logs stream in between."));
    setUpLineList(m_logPatterns, tr("one regular expression a line, e.g. iter (?<step>\\d+) cost (?<loss>\\S+)"),
                  tr("How users' own commands on this cluster print their progress: named groups epoch, epochs, step, "
                     "loss, val_loss, accuracy, lr, seconds (docs/metrics-schema.md). Tried after a job's own patterns "
                     "and before the built-in ones."),
                  5);
    setUpLineList(m_reach, tr("one a line, e.g. other-cluster=-p 22 me@login.other.org"),
                  tr("Other clusters this cluster's login node reaches with `ssh ARGUMENTS` and the keys it has there: "
                     "a run continued here from one of them copies its checkpoint straight from there, not through "
                     "this machine."),
                  4);
    m_note->setWordWrap(true);
    m_note->hide();
    m_errors->setWordWrap(true);
    m_errors->setStyleSheet(QStringLiteral("color: #d04040;"));

    auto *form = new QFormLayout;
    const auto add = [&](const QString &label, const QString &key, QWidget *widget) {
        form->addRow(label, widget);
        m_fields.insert(key, widget);
    };
    add(tr("&Name"), QStringLiteral("name"), m_name);
    add(tr("&Scheduler"), QStringLiteral("scheduler"), m_scheduler);
    add(tr("PBS &dialect"), QStringLiteral("pbs_dialect"), m_pbsDialect);
    add(tr("Slurm &history"), QStringLiteral("slurm_history"), m_slurmHistory);
    add(tr("&Partition / queue"), QStringLiteral("partition"), m_partition);
    add(tr("&Account"), QStringLiteral("account"), m_account);
    add(tr("&Work directory"), QStringLiteral("work_directory"), m_workDirectory);
    add(tr("&Modules"), QStringLiteral("modules"), m_modules);
    add(tr("&LibTorch"), QStringLiteral("libtorch"), m_libtorch);
    add(tr("&Trainer binary"), QStringLiteral("trainer_binary"), m_trainerBinary);
    add(QString(), QStringLiteral("build_on"), m_buildInJob);
    add(tr("Build job &CPUs"), QStringLiteral("build_cpus"), m_buildCpus);
    add(tr("L&og patterns"), QStringLiteral("log_patterns"), m_logPatterns);
    add(tr("Ask the scheduler at most &every"), QStringLiteral("min_poll_seconds"), m_minPoll);
    add(tr("Reaches (ssh)"), QStringLiteral("reach"), m_reach);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
    m_save = buttons->button(QDialogButtonBox::Save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        if (save())
            accept();
    });
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_note);
    layout->addWidget(m_errors);
    layout->addStretch();
    layout->addWidget(buttons);

    resize(560, sizeHint().height());
    setProfile(m_isNew ? defaultProfile(QString()) : store->profile(name));
    for (QLineEdit *edit : {m_name, m_account, m_partition, m_workDirectory, m_modules, m_libtorch, m_trainerBinary})
        connect(edit, &QLineEdit::textChanged, this, &ClusterProfileDialog::update);
    for (QComboBox *box : {m_scheduler, m_pbsDialect, m_slurmHistory})
        connect(box, &QComboBox::currentIndexChanged, this, &ClusterProfileDialog::update);
    connect(m_buildInJob, &QCheckBox::toggled, this, &ClusterProfileDialog::update);
    for (QSpinBox *box : {m_buildCpus, m_minPoll})
        connect(box, &QSpinBox::valueChanged, this, &ClusterProfileDialog::update);
    connect(m_logPatterns, &QPlainTextEdit::textChanged, this, &ClusterProfileDialog::update);
    connect(m_reach, &QPlainTextEdit::textChanged, this, &ClusterProfileDialog::update);
    update();
}

ClusterProfile ClusterProfileDialog::profile() const
{
    ClusterProfile profile = m_shown; // what the form has no field for stays as it was
    profile.name = m_name->text().trimmed();
    profile.scheduler = SchedulerKind(m_scheduler->currentData().toInt());
    profile.pbsDialect = PbsDialect(m_pbsDialect->currentData().toInt());
    profile.slurmHistory = SlurmHistory(m_slurmHistory->currentData().toInt());
    profile.account = m_account->text().trimmed();
    profile.partition = m_partition->text().trimmed();
    profile.workDirectory = m_workDirectory->text().trimmed();
    profile.modules = splitModules(m_modules->text());
    profile.libtorch = m_libtorch->text().trimmed().isEmpty() ? QStringLiteral("auto") : m_libtorch->text().trimmed();
    profile.trainerBinary = m_trainerBinary->text().trimmed();
    profile.buildInJob = m_buildInJob->isChecked();
    profile.buildCpus = m_buildCpus->value();
    profile.logPatterns = m_logPatterns->toPlainText().split(u'\n', Qt::SkipEmptyParts);
    profile.minPollSeconds = m_minPoll->value();
    profile.reach.clear();
    for (const QString &line : m_reach->toPlainText().split(u'\n', Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty())
            profile.reach.append(line.trimmed());
    return profile;
}

void ClusterProfileDialog::setProfile(const ClusterProfile &profile)
{
    m_shown = profile;
    m_name->setText(profile.name);
    m_scheduler->setCurrentIndex(m_scheduler->findData(int(profile.scheduler)));
    m_pbsDialect->setCurrentIndex(m_pbsDialect->findData(int(profile.pbsDialect)));
    m_slurmHistory->setCurrentIndex(m_slurmHistory->findData(int(profile.slurmHistory)));
    m_account->setText(profile.account);
    m_partition->setText(profile.partition);
    m_workDirectory->setText(profile.workDirectory);
    m_modules->setText(profile.modules.join(u' '));
    m_libtorch->setText(profile.libtorch);
    m_trainerBinary->setText(profile.trainerBinary);
    m_buildInJob->setChecked(profile.buildInJob);
    m_buildCpus->setValue(profile.buildCpus);
    m_logPatterns->setPlainText(profile.logPatterns.join(u'\n'));
    m_minPoll->setValue(profile.minPollSeconds);
    m_reach->setPlainText(profile.reach.join(u'\n'));
    update();
}

void ClusterProfileDialog::setSshAliases(const QStringList &aliases)
{
    m_sshAliases = aliases;
    update();
}

QString ClusterProfileDialog::noteText() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

QStringList ClusterProfileDialog::errorFields() const
{
    return m_errorFields;
}

QString ClusterProfileDialog::errorText() const
{
    return m_errors->text();
}

void ClusterProfileDialog::update()
{
    const ClusterProfile current = profile();
    QList<ProfileError> errors = validateClusterProfile(current);
    if (m_isNew && !current.name.isEmpty() && m_store->contains(current.name))
        errors.append({QStringLiteral("name"), tr("A profile named %1 exists already.").arg(current.name)});
    const bool unknownHost = !current.name.isEmpty() && !m_sshAliases.isEmpty() && !m_sshAliases.contains(current.name);
    m_note->setText(tr("%1 is not a Host of your ssh config: torchdeck connects to it as a host name with your "
                       "default user and keys. Add a Host entry to set those.")
                        .arg(current.name));
    m_note->setVisible(unknownHost);
    m_pbsDialect->setEnabled(current.scheduler == SchedulerKind::Pbs);
    m_slurmHistory->setEnabled(current.scheduler == SchedulerKind::Slurm);
    m_buildCpus->setEnabled(current.buildInJob);
    m_errorFields.clear();
    QStringList lines;
    for (QWidget *widget : std::as_const(m_fields))
        widget->setStyleSheet(QString());
    for (const ProfileError &error : std::as_const(errors)) {
        m_errorFields.append(error.field);
        if (QWidget *widget = m_fields.value(error.field))
            widget->setStyleSheet(QString::fromLatin1(errorStyle));
        lines.append(error.message);
    }
    m_errors->setText(lines.join(u'\n'));
    m_errors->setVisible(!lines.isEmpty());
    m_save->setEnabled(errors.isEmpty());
}

bool ClusterProfileDialog::save()
{
    update();
    if (!m_errorFields.isEmpty())
        return false;
    const ClusterProfile current = profile();
    const bool existed = m_store->contains(current.name);
    const ClusterProfile previous = m_store->profile(current.name);
    m_store->put(current);
    QString error;
    if (!m_store->save(&error)) {
        // The store keeps what the file holds, and follows what others save of it.
        m_store->revert(current.name, existed ? std::optional<ClusterProfile>(previous) : std::nullopt);
        m_errors->setText(tr("Cannot save %1: %2").arg(m_store->path(), error));
        m_errors->setVisible(true);
        return false;
    }
    emit saved(current);
    return true;
}

} // namespace torchdeck
