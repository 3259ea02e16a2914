#include "gui/runnotesbar.h"

#include "client/agentclient.h"
#include "client/sessionoperation.h"
#include "core/agent/agentops.h"
#include "core/store/runrecord.h"

#include <QHBoxLayout>
#include <QInputDialog>
#include <QLineEdit>
#include <QPushButton>

namespace torchdeck {

RunNotesBar::RunNotesBar(AgentClient *agent, QWidget *parent)
    : QWidget(parent)
    , m_agent(agent)
    , m_tags(new QLineEdit)
    , m_note(new QLineEdit)
    , m_rename(new QPushButton(tr("Re&name\u2026")))
{
    m_tags->setObjectName(QStringLiteral("runTags"));
    m_tags->setPlaceholderText(tr("Tags, separated by spaces"));
    m_tags->setToolTip(tr("Find the run by them in the filter box or with torchdeck runs --tag NAME"));
    m_note->setObjectName(QStringLiteral("runNote"));
    m_note->setPlaceholderText(tr("A note: what this run is for"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tags, 1);
    layout->addWidget(m_note, 3);
    layout->addWidget(m_rename);
    connect(m_tags, &QLineEdit::editingFinished, this, &RunNotesBar::keepTags);
    connect(m_note, &QLineEdit::editingFinished, this, &RunNotesBar::keepNote);
    connect(m_rename, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Rename run"), tr("Name:"), QLineEdit::Normal, m_name, &ok);
        if (ok)
            rename(name);
    });
    setEnabled(false);
}

void RunNotesBar::showRun(const RunRecord *run)
{
    setEnabled(run != nullptr);
    const bool same = run && run->id == m_runId;
    m_cluster = run ? run->cluster : QString();
    m_runId = run ? run->id : QString();
    m_name = run ? run->name : QString();
    const QStringList tags = run ? run->tags : QStringList{};
    const QString note = run ? run->note : QString();
    // What the user is typing stays: a field is set from the store only when not being edited.
    if (!same || !m_tags->hasFocus())
        m_tags->setText(tags.join(u' '));
    if (!same || !m_note->hasFocus())
        m_note->setText(note);
    m_shownTags = tags;
    m_shownNote = note;
}

void RunNotesBar::keepTags()
{
    const QStringList wanted = m_tags->text().split(u' ', Qt::SkipEmptyParts);
    if (m_runId.isEmpty() || editedTags(wanted, {}, {}) == m_shownTags)
        return;
    for (const QString &tag : wanted)
        if (const QString error = tagError(tag); !error.isEmpty())
            return emit message(error);
    QStringList removed;
    for (const QString &tag : std::as_const(m_shownTags))
        if (!wanted.contains(tag))
            removed.append(tag);
    SessionOperation *kept = m_agent->annotateRun(m_cluster, m_runId, std::nullopt, std::nullopt, wanted, removed);
    connect(kept, &SessionOperation::failed, this,
            [this](const QString &error) { emit message(tr("Tags not kept: %1").arg(error)); });
}

void RunNotesBar::keepNote()
{
    if (m_runId.isEmpty() || m_note->text() == m_shownNote)
        return;
    SessionOperation *kept = m_agent->annotateRun(m_cluster, m_runId, std::nullopt, m_note->text());
    connect(kept, &SessionOperation::failed, this,
            [this](const QString &error) { emit message(tr("Note not kept: %1").arg(error)); });
}

void RunNotesBar::rename(const QString &name)
{
    if (m_runId.isEmpty() || name.trimmed().isEmpty() || name.trimmed() == m_name)
        return;
    SessionOperation *renamed = m_agent->annotateRun(m_cluster, m_runId, name.trimmed(), std::nullopt);
    connect(renamed, &SessionOperation::failed, this,
            [this](const QString &error) { emit message(tr("Not renamed: %1").arg(error)); });
}

} // namespace torchdeck
