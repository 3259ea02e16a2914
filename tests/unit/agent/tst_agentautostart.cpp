// "Keep watching my runs after I log in": the XDG autostart entry where there is no user manager (these
// machines), the systemd user unit where one runs, each checked by its own validator where it is installed, and
// both gone when switched off.
#include "core/agent/agentautostart.h"
#include "testmain.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

namespace {
QString readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// A validator's verdict: empty when it accepts the file (or is not installed: then nothing to say).
QString validate(const QString &program, const QStringList &args)
{
    if (QStandardPaths::findExecutable(program).isEmpty())
        return {};
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    process.waitForFinished(30000);
    const QString said = QString::fromUtf8(process.readAll()).trimmed();
    return process.exitCode() == 0 && said.isEmpty() ? QString()
                                                     : said + QStringLiteral(" (exit %1)").arg(process.exitCode());
}
} // namespace

class TestAgentAutostart : public QObject {
    Q_OBJECT
private slots:
    void init();
    void anAutostartEntryWithoutAUserManager();
    void aUserUnitWithAUserManager();
    void anotherStoreIsNamed();

private:
    QTemporaryDir m_dir;
    const QString m_program = QStringLiteral("/opt/torch deck/bin/torchdeck");
};

void TestAgentAutostart::init()
{
    QVERIFY(m_dir.isValid());
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(QStringLiteral("config"))));
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.filePath(QStringLiteral("runtime"))));
    QVERIFY(setAutostart(false, m_program, {}).isEmpty());
}

void TestAgentAutostart::anAutostartEntryWithoutAUserManager()
{
    QVERIFY(!hasUserManager());
    QVERIFY(installedAutostart().isEmpty());
    QVERIFY(setAutostart(true, m_program, {}).isEmpty());
    const QString entry = installedAutostart();
    QCOMPARE(entry, m_dir.filePath(QStringLiteral("config/autostart/org.torchdeck.torchdeck-agent.desktop")));
    const QString text = readAll(entry);
    QVERIFY2(text.contains(QStringLiteral("\nExec=\"/opt/torch deck/bin/torchdeck\" agent\n")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("\nNoDisplay=true\n")));
    const QString verdict = validate(QStringLiteral("desktop-file-validate"), {entry});
    QVERIFY2(verdict.isEmpty(), qPrintable(verdict));
    QVERIFY(setAutostart(false, m_program, {}).isEmpty());
    QVERIFY(!QFileInfo::exists(entry));
    QVERIFY(installedAutostart().isEmpty());
}

void TestAgentAutostart::aUserUnitWithAUserManager()
{
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("runtime/systemd"))));
    QFile managerSocket(m_dir.filePath(QStringLiteral("runtime/systemd/private")));
    QVERIFY(managerSocket.open(QIODevice::WriteOnly));
    managerSocket.close();
    QVERIFY(hasUserManager());
    QVERIFY(setAutostart(true, m_program, {}).isEmpty());
    const QString unit = m_dir.filePath(QStringLiteral("config/systemd/user/torchdeck-agent.service"));
    QCOMPARE(installedAutostart(), unit);
    const QString text = readAll(unit);
    QVERIFY2(text.contains(QStringLiteral("\nExecStart=\"/opt/torch deck/bin/torchdeck\" agent\n")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("\nWantedBy=default.target\n")));
    const QFileInfo wants(
        m_dir.filePath(QStringLiteral("config/systemd/user/default.target.wants/torchdeck-agent.service")));
    QVERIFY(wants.isSymLink());
    QCOMPARE(wants.symLinkTarget(), unit);
    // systemd's own reading of the unit (it looks for the program: one that exists stands in for it; the man page
    // is the package's).
    QFile copy(m_dir.filePath(QStringLiteral("torchdeck-agent.service")));
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(QString(text)
                   .replace(QStringLiteral("\"/opt/torch deck/bin/torchdeck\""), QStringLiteral("/bin/true"))
                   .toUtf8());
    copy.close();
    const QString verdict = validate(QStringLiteral("systemd-analyze"),
                                     {QStringLiteral("verify"), QStringLiteral("--man=no"), copy.fileName()});
    QVERIFY2(verdict.isEmpty(), qPrintable(verdict));
    QVERIFY(setAutostart(false, m_program, {}).isEmpty());
    QVERIFY(!QFileInfo::exists(unit));
    QVERIFY(!QFileInfo::exists(wants.filePath()) && !QFileInfo(wants.filePath()).isSymLink());
}

void TestAgentAutostart::anotherStoreIsNamed()
{
    const AutostartFile entry =
        autostartFile(AutostartKind::XdgAutostart, m_program, QStringLiteral("/data/it's mine"));
    QVERIFY2(entry.text.contains(QStringLiteral(
                 "Exec=env \"TORCHDECK_DATA_DIR=/data/it's mine\" \"/opt/torch deck/bin/torchdeck\" agent")),
             qPrintable(entry.text));
    const AutostartFile unit = autostartFile(AutostartKind::SystemdUser, m_program, QStringLiteral("/data/mine"));
    QVERIFY2(unit.text.contains(QStringLiteral("Environment=\"TORCHDECK_DATA_DIR=/data/mine\"")),
             qPrintable(unit.text));
}

TORCHDECK_TEST_MAIN(TestAgentAutostart)
#include "tst_agentautostart.moc"
