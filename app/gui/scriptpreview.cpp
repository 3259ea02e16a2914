#include "gui/scriptpreview.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace torchdeck {

ScriptPreview::ScriptPreview(QWidget *parent)
    : QWidget(parent)
    , m_text(new QPlainTextEdit)
    , m_banner(new QLabel)
    , m_edit(new QPushButton(tr("&Edit script\u2026")))
    , m_revert(new QPushButton(tr("Re&vert to generated")))
{
    m_text->setObjectName(QStringLiteral("scriptPreview"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setToolTip(tr("The script core renders for these fields; at submission the run directory, "
                          "log and metrics paths and the trainer binary are filled in."));
    m_edit->setToolTip(tr("Edit the exact script that will be submitted (connects to the cluster to fill in "
                          "the run directory)"));
    m_banner->setWordWrap(true);
    m_edit->setObjectName(QStringLiteral("editScript"));
    m_revert->setObjectName(QStringLiteral("revertScript"));
    m_revert->hide();
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_banner, 1);
    bar->addWidget(m_revert);
    bar->addWidget(m_edit);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addLayout(bar);
    connect(m_edit, &QPushButton::clicked, this, &ScriptPreview::editRequested);
    connect(m_revert, &QPushButton::clicked, this, &ScriptPreview::revert);
}

void ScriptPreview::setGenerated(const QString &script)
{
    m_generated = script;
    if (!m_edited)
        m_text->setPlainText(script);
    updateBanner();
}

void ScriptPreview::beginEditing(const QString &script)
{
    m_edited = true;
    m_generatedAtEdit = m_generated;
    m_text->setPlainText(script);
    m_text->setReadOnly(false);
    m_text->setFocus();
    setBusy({});
    updateBanner();
    emit editedChanged(true);
}

void ScriptPreview::revert()
{
    if (!m_edited)
        return;
    m_edited = false;
    m_text->setReadOnly(true);
    m_text->setPlainText(m_generated);
    updateBanner();
    emit editedChanged(false);
}

QString ScriptPreview::text() const
{
    return m_text->toPlainText();
}

void ScriptPreview::setBusy(const QString &status)
{
    m_edit->setEnabled(status.isEmpty() && !m_edited);
    if (!status.isEmpty())
        m_banner->setText(status);
    else
        updateBanner();
}

QString ScriptPreview::bannerText() const
{
    return m_banner->text();
}

void ScriptPreview::updateBanner()
{
    m_revert->setVisible(m_edited);
    m_edit->setEnabled(!m_edited);
    if (!m_edited)
        m_banner->setText(QString());
    else if (m_generated != m_generatedAtEdit)
        m_banner->setText(tr("<b>Edited script</b>: submitted as shown. The fields changed since; revert to "
                             "generate it from them."));
    else
        m_banner->setText(tr("<b>Edited script</b>: submitted as shown."));
}

} // namespace torchdeck
