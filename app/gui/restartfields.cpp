#include "gui/restartfields.h"

#include "core/jobs/restartvalidation.h"
#include "core/runs/restartmechanism.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace torchdeck {

RestartFields::RestartFields(QWidget *parent)
    : QGroupBox(tr("Restarts"), parent)
    , m_maxRestarts(new QSpinBox)
    , m_requeue(new QCheckBox(tr("The job requeues &itself (scontrol requeue / qrerun)")))
    , m_chain(new QSpinBox)
    , m_moveAfter(new QSpinBox)
    , m_chainNote(new QLabel)
    , m_mechanism(new QLabel)
{
    m_maxRestarts->setRange(0, 1000);
    m_maxRestarts->setValue(JobSpec{}.maxRestarts);
    m_maxRestarts->setObjectName(QStringLiteral("maxRestarts"));
    m_maxRestarts->setToolTip(tr("How often a run that stops at its wall time or is preempted is restarted from its "
                                 "latest checkpoint, whoever restarts it"));
    m_requeue->setObjectName(QStringLiteral("requeue"));
    m_requeue->setToolTip(tr("After the checkpoint signal the job asks the scheduler to requeue it: one job id "
                             "throughout. Where that fails (a container without the scheduler's commands) "
                             "the torchdeck agent restarts it from outside."));
    m_mechanism->setObjectName(QStringLiteral("restartMechanism"));
    m_mechanism->setWordWrap(true);
    m_chain->setRange(1, maxChainJobs(m_maxRestarts->value()));
    m_chain->setObjectName(QStringLiteral("chain"));
    m_chain->setSuffix(tr(" job(s)"));
    m_chain->setToolTip(tr("Submit this many jobs at once, each to start only if the one before it stops "
                           "(afternotok): the queue wait of later attempts overlaps the first one's run"));
    m_chainNote->setWordWrap(true);
    m_moveAfter->setRange(0, 30 * 24 * 60);
    m_moveAfter->setObjectName(QStringLiteral("moveAfter"));
    m_moveAfter->setSpecialValueText(tr("never"));
    m_moveAfter->setSuffix(tr(" min"));
    m_moveAfter->setEnabled(false);
    m_moveAfter->setToolTip(tr("Choose other clusters with Any of… first. A restart that has waited this long on its "
                               "cluster moves to another of them where it would start sooner: its checkpoint is "
                               "copied there and the waiting job cancelled."));
    auto *form = new QFormLayout(this);
    form->addRow(tr("Restart &limit"), m_maxRestarts);
    form->addRow(m_requeue);
    form->addRow(m_mechanism);
    form->addRow(tr("Submit as a c&hain of"), m_chain);
    form->addRow(m_chainNote);
    form->addRow(tr("Move a waiting restart after"), m_moveAfter);
    connect(m_maxRestarts, &QSpinBox::valueChanged, this, [this] {
        limitChain();
        emit changed();
    });
    connect(m_requeue, &QCheckBox::clicked, this, [this] { m_requeueChosen = true; });
    connect(m_requeue, &QCheckBox::toggled, this, [this] {
        showMechanism();
        emit changed();
    });
    connect(m_chain, &QSpinBox::valueChanged, this, &RestartFields::changed);
    connect(m_moveAfter, &QSpinBox::valueChanged, this, [this] {
        showMechanism();
        emit changed();
    });
    limitChain();
    showMechanism();
}

void RestartFields::setCluster(const ClusterProfile &profile)
{
    m_profile = profile;
    if (!m_requeueChosen)
        m_requeue->setChecked(restartMechanism(profile, std::nullopt).inJobRequeue);
    showMechanism();
}

void RestartFields::showMechanism()
{
    m_requeue->setEnabled(!moves());
    m_mechanism->setText(mechanismText());
}

bool RestartFields::moves() const
{
    return m_moveAfter->isEnabled() && m_moveAfter->value() > 0;
}

void RestartFields::setMoveAllowed(bool allowed)
{
    m_moveAfter->setEnabled(allowed);
    m_requeue->setEnabled(!moves());
    showMechanism();
    emit changed();
}

QString RestartFields::mechanismText() const
{
    if (moves())
        return tr("At its wall time: %1").arg(movingRestartMechanism().why);
    const std::optional<bool> chosen = m_requeueChosen ? std::optional<bool>(m_requeue->isChecked()) : std::nullopt;
    return tr("At its wall time: %1").arg(restartMechanism(m_profile, chosen).why);
}

void RestartFields::apply(JobSpec &spec) const
{
    spec.maxRestarts = m_maxRestarts->value();
    spec.requeue = m_requeue->isChecked() && !moves();
    spec.moveAfterSeconds = moves() ? m_moveAfter->value() * 60 : 0;
}

void RestartFields::setFrom(const JobSpec &spec)
{
    m_maxRestarts->setValue(spec.maxRestarts);
    m_moveAfter->setValue(int((spec.moveAfterSeconds + 59) / 60));
    // A template's requeue is a choice when it asks for one; otherwise the cluster's default stays.
    if (spec.requeue) {
        m_requeueChosen = true;
        m_requeue->setChecked(true);
    }
}

int RestartFields::chainLength() const
{
    return m_chain->isEnabled() ? m_chain->value() : 1;
}

void RestartFields::setChainLength(int jobs)
{
    m_chain->setValue(jobs);
}

void RestartFields::setTrainer(bool trainer)
{
    // A custom command's later jobs get TORCHDECK_RESUME=1 and find their checkpoint themselves.
    m_chainNote->setText(trainer ? QString()
                                 : tr("Later jobs get TORCHDECK_RESUME=1: the command resumes from its own "
                                      "checkpoint in TORCHDECK_CHECKPOINT_DIR."));
    m_chainNote->setVisible(!trainer);
}

void RestartFields::limitChain()
{
    m_chain->setMaximum(maxChainJobs(m_maxRestarts->value()));
}

} // namespace torchdeck
