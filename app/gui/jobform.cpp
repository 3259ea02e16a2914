#include "gui/jobform.h"

#include "core/jobs/jobspecvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/jobs/signallead.h"
#include "core/jobs/walltime.h"
#include "core/profiles/partitionshape.h"
#include "gui/restartfields.h"
#include "gui/scriptpreview.h"
#include "gui/walltimebudgetlabel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStringListModel>
#include <QVBoxLayout>

namespace torchdeck {

namespace {
// The values a field offers: one completer per field, its list replaced (the agent's reads of a cluster's shape
// bring new ones now and then; an empty list offers nothing).
void offerChoices(QLineEdit *field, const QStringList &choices)
{
    if (!field->completer()) {
        auto *completer = new QCompleter(new QStringListModel(field), field);
        completer->setCompletionMode(QCompleter::UnfilteredPopupCompletion);
        field->setCompleter(completer);
    }
    qobject_cast<QStringListModel *>(field->completer()->model())->setStringList(choices);
}

// The trainer flags the form has a field for; other flags stay in "more arguments".
const char16_t *const formTrainerFlags[] = {u"--model",      u"--data", u"--epochs",
                                            u"--batch-size", u"--lr",   u"--optimizer"};
const char *const errorStyle = "border: 1px solid #d04040;";

QSpinBox *spin(int min, int max, int value)
{
    auto *box = new QSpinBox;
    box->setRange(min, max);
    box->setValue(value);
    return box;
}

bool isFormFlag(const QString &word)
{
    for (const char16_t *flag : formTrainerFlags) {
        const QString name = QString::fromUtf16(flag);
        if (word == name || word.startsWith(QString(name + u'=')))
            return true;
    }
    return false;
}

// The trainer arguments without the flags (and their values) the form has fields for.
QStringList withoutFormFlags(const QStringList &args)
{
    QStringList rest;
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (!isFormFlag(args.at(i)))
            rest.append(args.at(i));
        else if (!args.at(i).contains(u'='))
            ++i; // its value
    }
    return rest;
}

QStringList words(const QString &text)
{
    return QProcess::splitCommand(text);
}

// Joins words back so splitCommand gives them again (quotes only where needed).
QString joinWords(const QStringList &list)
{
    QStringList quoted;
    for (const QString &word : list) {
        if (word.isEmpty() || word.contains(u' ') || word.contains(u'"') || word.contains(u'\t'))
            quoted.append(QString(u'"' + QString(word).replace(QStringLiteral("\""), QStringLiteral("\"\"\"")) + u'"'));
        else
            quoted.append(word);
    }
    return quoted.join(u' ');
}
} // namespace

JobForm::JobForm(QWidget *parent)
    : QWidget(parent)
{
    auto *fields = new QWidget;
    auto *column = new QVBoxLayout(fields);
    column->addWidget(buildCommandGroup());
    column->addWidget(buildResourceGroup());
    m_restarts = new RestartFields;
    column->addWidget(m_restarts);
    connect(m_restarts, &RestartFields::changed, this, &JobForm::update);
    m_errorLabel = new QLabel;
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setStyleSheet(QStringLiteral("color: #d04040;"));
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(m_errorLabel);
    column->addStretch();

    m_preview = new ScriptPreview;
    auto *previewBox = new QGroupBox(tr("Job script preview"));
    auto *previewLayout = new QVBoxLayout(previewBox);
    previewLayout->addWidget(m_preview);
    connect(m_preview, &ScriptPreview::editedChanged, this, &JobForm::specChanged);

    // The fields scroll rather than push the dialog past a 768-pixel screen.
    auto *scroll = new QScrollArea;
    scroll->setWidget(fields);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(fields->sizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    auto *splitter = new QSplitter;
    splitter->addWidget(scroll);
    splitter->addWidget(previewBox);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    update();
}

QWidget *JobForm::buildCommandGroup()
{
    auto *box = new QGroupBox(tr("What to run"));
    auto *form = new QFormLayout(box);
    m_trainer = new QRadioButton(tr("&Bundled trainer"));
    m_custom = new QRadioButton(tr("C&ustom command"));
    m_trainer->setChecked(true);
    auto *kinds = new QHBoxLayout;
    kinds->addWidget(m_trainer);
    kinds->addWidget(m_custom);
    form->addRow(kinds);
    m_model = new QComboBox;
    m_model->addItems({QStringLiteral("ae"), QStringLiteral("toy"), QStringLiteral("toy-split"),
                       QStringLiteral("resnet18"), QStringLiteral("resnet50")});
    m_data = new QLineEdit(QStringLiteral("fashion-mnist"));
    m_data->setToolTip(tr("fashion-mnist[:DIR], mnist:DIR or synthetic[:N]"));
    m_epochs = spin(1, 1000000, 10);
    m_batch = spin(1, 1 << 20, 64);
    m_lr = new QLineEdit(QStringLiteral("0.001"));
    m_optimizer = new QComboBox;
    m_optimizer->addItems({QStringLiteral("adam"), QStringLiteral("sgd")});
    m_extraArgs = new QLineEdit;
    m_extraArgs->setPlaceholderText(QStringLiteral("--threads 1 --log-every 16"));
    m_command = new QLineEdit;
    m_command->setPlaceholderText(QStringLiteral("python train.py --epochs 10"));
    form->addRow(tr("&Model"), m_model);
    form->addRow(tr("&Data"), m_data);
    form->addRow(tr("&Epochs"), m_epochs);
    form->addRow(tr("&Batch size"), m_batch);
    form->addRow(tr("&Learning rate"), m_lr);
    form->addRow(tr("&Optimizer"), m_optimizer);
    form->addRow(tr("More a&rguments"), m_extraArgs);
    m_perNodeLauncher = new QLineEdit(QStringLiteral("torchrun"));
    m_perNodeLauncher->setToolTip(tr("Started once per node by srun-per-node; it starts the node's ranks: torchrun, "
                                     "or python -m torch.distributed.launch (which passes --local_rank)"));
    form->addRow(tr("&Command"), m_command);
    m_code = new QLineEdit;
    m_code->setObjectName(QStringLiteral("codeFolder"));
    m_code->setPlaceholderText(tr("none: the command finds its files on the cluster"));
    m_code->setToolTip(tr("A folder of your project, uploaded as a snapshot (the files git lists, or all but "
                          ".torchdeckignore's); the command runs in the run's copy of it, and a resume runs the "
                          "same code. Files the cluster has from an earlier snapshot are not sent again."));
    m_chooseCode = new QPushButton(tr("C&hoose…"));
    connect(m_chooseCode, &QPushButton::clicked, this, [this] {
        const QString folder =
            QFileDialog::getExistingDirectory(this, tr("The folder of your project"), m_code->text());
        if (!folder.isEmpty())
            m_code->setText(QDir::toNativeSeparators(folder));
    });
    auto *codeRow = new QHBoxLayout;
    codeRow->setContentsMargins(0, 0, 0, 0);
    codeRow->addWidget(m_code, 1);
    codeRow->addWidget(m_chooseCode);
    form->addRow(tr("Code &folder"), codeRow);
    form->addRow(tr("Per-node launc&her"), m_perNodeLauncher);
    track(QStringLiteral("code"), m_code);
    track(QStringLiteral("trainerArgs"), m_extraArgs);
    track(QStringLiteral("customCommand"), m_command);
    track(QStringLiteral("perNodeLauncher"), m_perNodeLauncher);
    for (QWidget *w : {static_cast<QWidget *>(m_trainer), static_cast<QWidget *>(m_custom)})
        connect(static_cast<QRadioButton *>(w), &QRadioButton::toggled, this, &JobForm::update);
    for (QComboBox *combo : {m_model, m_optimizer})
        connect(combo, &QComboBox::currentIndexChanged, this, &JobForm::update);
    for (QLineEdit *edit : {m_data, m_lr, m_perNodeLauncher, m_code})
        connect(edit, &QLineEdit::textChanged, this, &JobForm::update);
    for (QSpinBox *spinBox : {m_epochs, m_batch})
        connect(spinBox, &QSpinBox::valueChanged, this, &JobForm::update);
    return box;
}

QWidget *JobForm::buildResourceGroup()
{
    auto *box = new QGroupBox(tr("Where and how"));
    auto *form = new QFormLayout(box);
    m_name = new QLineEdit(QStringLiteral("train"));
    m_nodes = spin(1, 100000, 1);
    m_tasks = spin(1, 1024, 1);
    m_gpus = spin(0, 64, 0);
    m_gpusPerTask = spin(0, 64, 0);
    m_gpusPerTask->setSpecialValueText(tr("not bound (each rank sees the node's GPUs)"));
    m_gpusPerTask->setToolTip(tr("Slurm's --gpus-per-task: each rank gets its own GPUs (CUDA_VISIBLE_DEVICES)"));
    m_gpuType = new QLineEdit;
    m_gpuType->setPlaceholderText(tr("any"));
    m_cpus = spin(1, 1024, 1);
    m_memory = new QLineEdit;
    m_memory->setPlaceholderText(tr("16G (per node; empty: the default)"));
    m_wallTime = new QLineEdit(QStringLiteral("01:00:00"));
    m_partition = new QLineEdit;
    m_partitionNote = new QLabel;
    m_partitionNote->setWordWrap(true);
    m_partitionNote->setVisible(false);
    m_account = new QLineEdit;
    m_modules = new QLineEdit;
    m_modules->setPlaceholderText(QStringLiteral("cmake pytorch"));
    m_launch = new QComboBox;
    for (LaunchMethod method :
         {LaunchMethod::Srun, LaunchMethod::SrunPerNodeLauncher, LaunchMethod::Mpirun, LaunchMethod::Local})
        m_launch->addItem(launchMethodName(method), int(method));
    m_signal = new QComboBox;
    m_signal->addItem(tr("default"), QString());
    for (const QString &signal : supportedCheckpointSignals())
        m_signal->addItem(signal, signal);
    m_signal->addItem(tr("none"), QStringLiteral("-"));
    m_signalLead = spin(0, 65535, kDefaultSignalLeadSeconds);
    m_signalLead->setSuffix(tr(" s before the end"));
    m_signalLeadNote = new QLabel;
    m_signalLeadNote->setVisible(false);
    m_budget = new WallTimeBudgetLabel;
    form->addRow(tr("&Name"), m_name);
    form->addRow(tr("No&des"), m_nodes);
    form->addRow(tr("&Tasks per node"), m_tasks);
    form->addRow(tr("&GPUs per node"), m_gpus);
    form->addRow(tr("GPUs per tas&k"), m_gpusPerTask);
    form->addRow(tr("GPU t&ype"), m_gpuType);
    form->addRow(tr("CP&Us per task"), m_cpus);
    form->addRow(tr("Memor&y"), m_memory);
    form->addRow(tr("&Wall time"), m_wallTime);
    form->addRow(QString(), m_budget);
    form->addRow(tr("&Partition / queue"), m_partition);
    form->addRow(QString(), m_partitionNote);
    form->addRow(tr("&Account"), m_account);
    form->addRow(tr("Mod&ules"), m_modules);
    form->addRow(tr("&Launch method"), m_launch);
    form->addRow(tr("Checkpoint &signal"), m_signal);
    form->addRow(tr("Signal l&ead"), m_signalLead);
    form->addRow(QString(), m_signalLeadNote);
    const std::pair<const char16_t *, QWidget *> tracked[] = {{u"name", m_name},
                                                              {u"nodes", m_nodes},
                                                              {u"tasksPerNode", m_tasks},
                                                              {u"gpusPerNode", m_gpus},
                                                              {u"gpusPerTask", m_gpusPerTask},
                                                              {u"gpuType", m_gpuType},
                                                              {u"cpusPerTask", m_cpus},
                                                              {u"memory", m_memory},
                                                              {u"wallTimeSeconds", m_wallTime},
                                                              {u"partition", m_partition},
                                                              {u"account", m_account},
                                                              {u"modules", m_modules},
                                                              {u"launch", m_launch},
                                                              {u"checkpointSignal", m_signal},
                                                              {u"signalLeadSeconds", m_signalLead}};
    for (const auto &[name, widget] : tracked)
        track(QString::fromUtf16(name), widget);
    for (QLineEdit *edit :
         {m_name, m_memory, m_wallTime, m_partition, m_account, m_gpuType, m_modules, m_extraArgs, m_command})
        connect(edit, &QLineEdit::textChanged, this, &JobForm::update);
    for (QSpinBox *spinBox : {m_nodes, m_tasks, m_gpus, m_gpusPerTask, m_cpus})
        connect(spinBox, &QSpinBox::valueChanged, this, &JobForm::update);
    for (QComboBox *combo : {m_launch, m_signal})
        connect(combo, &QComboBox::currentIndexChanged, this, &JobForm::update);
    // A lead the user typed stays; until then it follows the wall time (defaultSignalLeadSeconds). Marked
    // before update() runs, which would otherwise put the default back.
    connect(m_signalLead, &QSpinBox::valueChanged, this, [this] {
        if (!m_updating)
            m_leadFollowsWallTime = false;
        update();
    });
    return box;
}

void JobForm::track(const QString &field, QWidget *widget)
{
    m_fields.insert(field, widget);
}

void JobForm::setCaps(const ClusterCaps &caps)
{
    m_caps = caps;
    // The partitions `check` read are offered as the field's choices; another name may still be typed.
    QStringList names;
    for (const PartitionCaps &p : caps.partitions)
        names.append(p.name);
    offerChoices(m_partition, names);
    if (!names.isEmpty()) {
        m_partition->setPlaceholderText(
            tr("%1 (%2)").arg(caps.defaultPartition.isEmpty() ? tr("the default") : caps.defaultPartition,
                              names.join(QStringLiteral(", "))));
    } else {
        m_partition->setPlaceholderText(QString());
    }
    // The accounts and GPU types the cluster's shape names, offered the same way.
    QStringList accounts;
    for (const AccountAccess &a : caps.accounts) {
        if (!accounts.contains(a.account))
            accounts.append(a.account);
    }
    QStringList gpuTypes;
    for (const PartitionCaps &p : caps.partitions) {
        for (const QString &type : p.gpuTypes) {
            if (!gpuTypes.contains(type))
                gpuTypes.append(type);
        }
    }
    offer(m_account, accounts);
    offer(m_gpuType, gpuTypes);
    update();
}

void JobForm::offer(QLineEdit *field, const QStringList &choices)
{
    offerChoices(field, choices);
    field->setToolTip(choices.isEmpty() ? QString() : tr("Known here: %1").arg(choices.join(QStringLiteral(", "))));
}

void JobForm::showPartitionLimits()
{
    const PartitionCaps *p = m_caps.partition(m_partition->text().trimmed());
    m_partitionNote->setVisible(p != nullptr);
    if (p)
        m_partitionNote->setText(tr("%1 (%2)").arg(describePartitions({*p}), m_caps.partitionsSource));
}

JobSpec JobForm::spec() const
{
    JobSpec spec;
    spec.name = m_name->text().trimmed();
    spec.nodes = m_nodes->value();
    spec.tasksPerNode = m_tasks->value();
    spec.gpusPerNode = m_gpus->value();
    spec.gpusPerTask = m_gpusPerTask->value();
    spec.gpuType = m_gpuType->text().trimmed();
    spec.cpusPerTask = m_cpus->value();
    spec.memory = m_memory->text().trimmed();
    spec.wallTimeSeconds =
        m_wallTime->text().trimmed().isEmpty() ? 0 : parseWallTime(m_wallTime->text().trimmed()).value_or(0);
    spec.partition = m_partition->text().trimmed();
    spec.account = m_account->text().trimmed();
    spec.modules = m_modules->text().split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts);
    spec.launch = static_cast<LaunchMethod>(m_launch->currentData().toInt());
    const QString signal = m_signal->currentData().toString();
    spec.checkpointSignalEnabled = signal != u"-";
    spec.checkpointSignal = signal == u"-" ? QString() : signal;
    spec.signalLeadSeconds = m_signalLead->value();
    m_restarts->apply(spec);
    if (m_custom->isChecked()) {
        spec.commandKind = CommandKind::Custom;
        spec.customCommand = m_command->text();
        spec.perNodeLauncher = m_perNodeLauncher->text().trimmed();
        if (!m_code->text().trimmed().isEmpty())
            spec.codeDirectory = QDir(m_code->text().trimmed()).absolutePath();
        return spec;
    }
    spec.commandKind = CommandKind::Trainer;
    spec.trainerArgs = {QStringLiteral("--model"),      m_model->currentText(),
                        QStringLiteral("--data"),       m_data->text().trimmed(),
                        QStringLiteral("--epochs"),     QString::number(m_epochs->value()),
                        QStringLiteral("--batch-size"), QString::number(m_batch->value()),
                        QStringLiteral("--lr"),         m_lr->text().trimmed(),
                        QStringLiteral("--optimizer"),  m_optimizer->currentText()};
    spec.trainerArgs += words(m_extraArgs->text());
    return spec;
}

void JobForm::setSpec(const JobSpec &spec)
{
    m_updating = true;
    m_name->setText(spec.name);
    m_nodes->setValue(spec.nodes);
    m_tasks->setValue(spec.tasksPerNode);
    m_gpus->setValue(spec.gpusPerNode);
    m_gpusPerTask->setValue(spec.gpusPerTask);
    m_gpuType->setText(spec.gpuType);
    m_cpus->setValue(spec.cpusPerTask);
    m_memory->setText(spec.memory);
    m_wallTime->setText(spec.wallTimeSeconds > 0 ? formatSlurmWallTime(spec.wallTimeSeconds) : QString());
    m_partition->setText(spec.partition);
    m_account->setText(spec.account);
    m_modules->setText(spec.modules.join(u' '));
    m_launch->setCurrentIndex(std::max(0, m_launch->findData(int(spec.launch))));
    const QString signal = spec.checkpointSignalEnabled ? spec.checkpointSignal : QStringLiteral("-");
    m_signal->setCurrentIndex(std::max(0, m_signal->findData(signal)));
    m_signalLead->setValue(spec.signalLeadSeconds);
    m_leadFollowsWallTime = spec.signalLeadSeconds == defaultSignalLeadSeconds(spec);
    m_restarts->setFrom(spec);
    m_custom->setChecked(spec.commandKind == CommandKind::Custom);
    m_trainer->setChecked(spec.commandKind == CommandKind::Trainer);
    m_command->setText(spec.customCommand);
    m_perNodeLauncher->setText(spec.perNodeLauncher);
    m_code->setText(spec.codeDirectory);
    const QStringList rest = withoutFormFlags(spec.trainerArgs);
    const auto value = [&spec](const char16_t *flag) {
        return trainerOption(spec.trainerArgs, QString::fromUtf16(flag));
    };
    if (!value(u"--model").isEmpty())
        m_model->setCurrentText(value(u"--model"));
    m_data->setText(value(u"--data").isEmpty() ? QStringLiteral("fashion-mnist") : value(u"--data"));
    m_epochs->setValue(value(u"--epochs").isEmpty() ? 10 : value(u"--epochs").toInt());
    m_batch->setValue(value(u"--batch-size").isEmpty() ? 64 : value(u"--batch-size").toInt());
    m_lr->setText(value(u"--lr").isEmpty() ? QStringLiteral("0.001") : value(u"--lr"));
    if (!value(u"--optimizer").isEmpty())
        m_optimizer->setCurrentText(value(u"--optimizer"));
    m_extraArgs->setText(joinWords(rest));
    m_updating = false;
    update();
}

void JobForm::update()
{
    if (m_updating)
        return;
    const bool trainer = m_trainer->isChecked();
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_model, m_data, m_epochs, m_batch, m_lr, m_optimizer, m_extraArgs})
        w->setEnabled(trainer);
    m_command->setEnabled(!trainer);
    m_code->setEnabled(!trainer);
    m_chooseCode->setEnabled(!trainer);
    m_perNodeLauncher->setEnabled(!trainer &&
                                  m_launch->currentData().toInt() == int(LaunchMethod::SrunPerNodeLauncher));
    m_restarts->setTrainer(trainer);
    m_signalLead->setEnabled(m_signal->currentData().toString() != u"-");
    if (m_leadFollowsWallTime) {
        const QSignalBlocker quiet(m_signalLead);
        m_signalLead->setValue(defaultSignalLeadSeconds(spec()));
    }

    const JobSpec current = spec();
    const QString leadReason = m_leadFollowsWallTime ? signalLeadDefaultReason(current) : QString();
    m_signalLeadNote->setText(leadReason);
    m_signalLeadNote->setVisible(!leadReason.isEmpty());
    QList<JobSpecError> errors;
    const QString wall = m_wallTime->text().trimmed();
    if (!wall.isEmpty() && !parseWallTime(wall))
        errors.append(
            {QStringLiteral("wallTimeSeconds"), tr("'%1' is not a wall time (HH:MM:SS, D-HH:MM, MM).").arg(wall)});
    if (!current.codeDirectory.isEmpty() && !QFileInfo(current.codeDirectory).isDir())
        errors.append({QStringLiteral("code"), tr("The code folder %1 does not exist.").arg(current.codeDirectory)});
    showPartitionLimits();
    const ScriptResult rendered = m_render ? m_render(current) : renderJobScript(current, m_caps);
    errors += rendered.errors;
    if (errors.isEmpty())
        m_preview->setGenerated(rendered.script);
    showErrors(errors);
    emit specChanged();
}

void JobForm::setRenderer(std::function<ScriptResult(const JobSpec &)> render)
{
    m_render = std::move(render);
    update();
}

int JobForm::chainLength() const
{
    return m_restarts->chainLength();
}

void JobForm::showErrors(const QList<JobSpecError> &errors)
{
    m_errors = errors;
    for (QWidget *widget : std::as_const(m_fields))
        widget->setStyleSheet(QString());
    QStringList lines;
    for (const JobSpecError &error : errors) {
        const QString key = error.field.section(u'[', 0, 0).section(u'.', 0, 0);
        if (QWidget *widget = m_fields.value(key))
            widget->setStyleSheet(QString::fromLatin1(errorStyle));
        lines.append(error.message);
    }
    m_errorLabel->setText(lines.join(u'\n'));
    m_errorLabel->setVisible(!lines.isEmpty());
    m_preview->setEnabled(errors.isEmpty() || m_preview->isEdited());
}

QString JobForm::previewScript() const
{
    return m_errors.isEmpty() ? m_preview->generated() : QString();
}

} // namespace torchdeck
