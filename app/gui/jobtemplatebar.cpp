#include "gui/jobtemplatebar.h"

#include "gui/jobform.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>

namespace torchdeck {

JobTemplateBar::JobTemplateBar(JobForm *form, QWidget *parent)
    : QWidget(parent)
    , m_form(form)
    , m_box(new QComboBox)
    , m_save(new QPushButton(tr("Save as te&mplate\u2026")))
    , m_delete(new QPushButton(tr("Delete template")))
    , m_problem(new QLabel)
{
    m_box->setObjectName(QStringLiteral("jobTemplates"));
    m_box->setMinimumContentsLength(16);
    m_box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_problem->setStyleSheet(QStringLiteral("color: #d04040;"));
    m_problem->setWordWrap(true);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_box);
    layout->addWidget(m_save);
    layout->addWidget(m_delete);
    layout->addWidget(m_problem, 1);
    layout->addStretch(); // the buttons keep their size while no problem is shown
    connect(m_box, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            apply(m_box->itemText(index));
    });
    connect(m_save, &QPushButton::clicked, this, &JobTemplateBar::askName);
    connect(m_delete, &QPushButton::clicked, this, [this] {
        if (m_box->currentIndex() > 0)
            remove(m_box->currentText());
    });

    QString error;
    const bool read = m_templates.load(&error);
    showProblem(error);
    m_save->setEnabled(read);
    reload();
}

QString JobTemplateBar::problem() const
{
    return m_problem->text();
}

void JobTemplateBar::reload(const QString &select)
{
    m_box->clear();
    m_box->addItem(tr("Templates\u2026"));
    m_box->addItems(m_templates.names());
    const int at = m_box->findText(select);
    m_box->setCurrentIndex(at > 0 ? at : 0);
    m_box->setEnabled(m_box->count() > 1);
    m_delete->setEnabled(m_box->count() > 1);
}

void JobTemplateBar::showProblem(const QString &text)
{
    m_problem->setText(text);
    m_problem->setVisible(!text.isEmpty());
}

void JobTemplateBar::askName()
{
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Save as template"));
    dialog->setLabelText(tr("Template name (an existing one is replaced):"));
    dialog->setTextValue(m_box->currentIndex() > 0 ? m_box->currentText() : m_form->spec().name);
    connect(dialog, &QInputDialog::textValueSelected, this, [this](const QString &name) { saveAs(name); });
    dialog->open();
}

bool JobTemplateBar::saveAs(const QString &name)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty()) {
        showProblem(tr("A template needs a name."));
        return false;
    }
    if (!m_form->errors().isEmpty()) {
        showProblem(tr("Fix the form's errors before saving it as a template."));
        return false;
    }
    const bool existed = m_templates.contains(trimmed);
    const JobSpec previous = m_templates.spec(trimmed);
    m_templates.put(trimmed, m_form->spec());
    QString error;
    if (!m_templates.save(&error)) {
        if (existed)
            m_templates.put(trimmed, previous);
        else
            m_templates.remove(trimmed);
        showProblem(error);
        return false;
    }
    showProblem({});
    reload(trimmed);
    return true;
}

bool JobTemplateBar::apply(const QString &name)
{
    if (!m_templates.contains(name))
        return false;
    m_form->setSpec(m_templates.spec(name));
    m_box->setCurrentIndex(m_box->findText(name));
    return true;
}

bool JobTemplateBar::remove(const QString &name)
{
    if (!m_templates.contains(name))
        return false;
    const JobSpec previous = m_templates.spec(name);
    m_templates.remove(name);
    QString error;
    if (!m_templates.save(&error)) {
        m_templates.put(name, previous);
        showProblem(error);
        return false;
    }
    showProblem({});
    reload();
    return true;
}

} // namespace torchdeck
