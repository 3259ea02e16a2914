// The window's Settings: "Keep watching my runs after I log in" writes the login autostart file and removes it
// again (an XDG autostart entry: no user manager here), and the agent's idle time is kept where `torchdeck agent`
// reads it.
#include "client/agentclient.h"
#include "core/agent/agentautostart.h"
#include "core/agent/agentpaths.h"
#include "core/store/runstore.h"
#include "gui/settingsdialog.h"
#include "testmain.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

class TestSettingsDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(QStringLiteral("xdg"))));
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.filePath(QStringLiteral("runtime"))));
        qputenv("TORCHDECK_CONFIG_DIR", QFile::encodeName(m_dir.filePath(QStringLiteral("config"))));
        qputenv("TORCHDECK_DATA_DIR", QFile::encodeName(m_dir.filePath(QStringLiteral("data"))));
    }

    void keepsWatchingAfterLoginAndTheIdleTime()
    {
        RunStore store;
        AgentClient agent({}, &store); // no agent runs: the dialog says so
        const QString entry = m_dir.filePath(QStringLiteral("xdg/autostart/org.torchdeck.torchdeck-agent.desktop"));
        {
            SettingsDialog dialog(&agent);
            QVERIFY(!dialog.keepWatching()->isChecked());
            QCOMPARE(dialog.idleMinutes()->value(), 10);
            QTRY_VERIFY(dialog.statusText().startsWith(QStringLiteral("No agent: ")));
            dialog.keepWatching()->setChecked(true);
            dialog.idleMinutes()->setValue(25);
            dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
        }
        QVERIFY(QFileInfo::exists(entry));
        QCOMPARE(installedAutostart(), entry);
        QCOMPARE(agentIdleExitMinutes(), 25);
        SettingsDialog again(&agent);
        QVERIFY(again.keepWatching()->isChecked());
        again.keepWatching()->setChecked(false);
        again.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QVERIFY(!QFileInfo::exists(entry));
        QVERIFY(installedAutostart().isEmpty());
    }

private:
    QTemporaryDir m_dir;
};

TORCHDECK_TEST_MAIN(TestSettingsDialog)
#include "tst_settingsdialog.moc"
