#include "gui/logpanel.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QShortcut>
#include <QVBoxLayout>

namespace torchdeck {

LogPanel::LogPanel(QWidget *parent)
    : QWidget(parent)
    , m_path(new QLabel)
    , m_followBox(new QCheckBox(tr("F&ollow")))
    , m_search(new QLineEdit)
    , m_text(new QPlainTextEdit)
{
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_followBox->setChecked(true);
    m_search->setPlaceholderText(tr("Search the log"));
    m_search->setClearButtonEnabled(true);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_path, 1);
    bar->addWidget(m_search);
    bar->addWidget(m_followBox);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);

    connect(&m_follower, &LogFollower::text, this, &LogPanel::show);
    connect(&m_follower, &LogFollower::failed, this, [this](const QString &error) {
        m_path->setText(tr("%1 (cannot read: %2)").arg(m_follower.path(), error));
    });
    connect(m_followBox, &QCheckBox::toggled, this, [this](bool on) {
        applyActive();
        if (on && m_shown)
            m_follower.readNow();
    });
    connect(m_search, &QLineEdit::returnPressed, this, [this] { find(false); });
    auto *previous = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Return), m_search);
    previous->setContext(Qt::WidgetShortcut);
    connect(previous, &QShortcut::activated, this, [this] { find(true); });
}

void LogPanel::follow(AgentClient *agent, const QString &cluster, const QString &path, bool growing,
                      const std::optional<QByteArray> &kept)
{
    m_path->setText(path.isEmpty() ? tr("No log yet") : path);
    if (path != m_follower.path())
        m_text->clear();
    m_follower.follow(agent, cluster, path, growing, kept);
}

void LogPanel::setShown(bool shown)
{
    m_shown = shown;
    applyActive();
}

void LogPanel::applyActive()
{
    m_follower.setActive(m_shown && isFollowing());
}

void LogPanel::setFollowing(bool on)
{
    m_followBox->setChecked(on);
}

bool LogPanel::isFollowing() const
{
    return m_followBox->isChecked();
}

QString LogPanel::text() const
{
    return m_text->toPlainText();
}

void LogPanel::focusSearch()
{
    m_search->setFocus();
    m_search->selectAll();
}

void LogPanel::show(const QString &text)
{
    if (text == m_text->toPlainText())
        return;
    QScrollBar *bar = m_text->verticalScrollBar();
    const int kept = bar->value();
    m_text->setPlainText(text);
    bar->setValue(isFollowing() ? bar->maximum() : kept);
}

void LogPanel::find(bool backwards)
{
    const QString needle = m_search->text();
    if (needle.isEmpty())
        return;
    const QTextDocument::FindFlags flags = backwards ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (!m_text->find(needle, flags)) {
        // Wrap around once.
        m_text->moveCursor(backwards ? QTextCursor::End : QTextCursor::Start);
        m_text->find(needle, flags);
    }
    setFollowing(false); // reading a match: do not jump away from it
}

} // namespace torchdeck
