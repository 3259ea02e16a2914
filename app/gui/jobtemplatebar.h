#pragma once

#include "core/profiles/jobtemplates.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace torchdeck {

class JobForm;

// The job templates above the new-job form: pick one to fill the form, save the form's job under a name,
// delete one. Kept in JobTemplates' file.
class JobTemplateBar : public QWidget {
    Q_OBJECT
public:
    explicit JobTemplateBar(JobForm *form, QWidget *parent = nullptr);

    QStringList names() const { return m_templates.names(); }
    bool saveAs(const QString &name); // false with the reason shown
    bool apply(const QString &name);
    bool remove(const QString &name);
    QString problem() const;
    QComboBox *box() const { return m_box; }

private:
    void reload(const QString &select = {});
    void showProblem(const QString &text);
    void askName();

    JobForm *m_form;
    JobTemplates m_templates;
    QComboBox *m_box;
    QPushButton *m_save;
    QPushButton *m_delete;
    QLabel *m_problem;
};

} // namespace torchdeck
