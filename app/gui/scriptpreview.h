#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace torchdeck {

// The job script beside the form: core's script for the fields, live and read-only, until the user asks to
// edit it. Editing starts from the exact script a submission would send (the owner fetches it, with the run
// directory filled in) and from then on the edited text is what gets submitted, said in a banner with
// "Revert to generated", even when the fields change afterwards.
class ScriptPreview : public QWidget {
    Q_OBJECT
public:
    explicit ScriptPreview(QWidget *parent = nullptr);

    void setGenerated(const QString &script); // while edited: kept for revert, the banner says it changed
    QString generated() const { return m_generated; }
    void beginEditing(const QString &script);
    void revert();
    bool isEdited() const { return m_edited; }
    QString text() const;
    void setBusy(const QString &status); // empty: not busy
    QPlainTextEdit *editor() const { return m_text; }
    QString bannerText() const;

signals:
    void editRequested();
    void editedChanged(bool edited);

private:
    void updateBanner();

    QString m_generated;
    QString m_generatedAtEdit;
    bool m_edited = false;
    QPlainTextEdit *m_text;
    QLabel *m_banner;
    QPushButton *m_edit;
    QPushButton *m_revert;
};

} // namespace torchdeck
