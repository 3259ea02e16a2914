// The application's names and folders, and settings carried over from before the organization was set.
#include "core/appidentity.h"
#include "testmain.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

class TestAppIdentity : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void foldersStayWhereTheyWere();
    void environmentChoosesTheFolders();
    void legacySettingsAreCarriedOverOnce();
    void noLegacySettingsNothingHappens();

private:
    QTemporaryDir m_home;
};

void TestAppIdentity::initTestCase()
{
    QVERIFY(m_home.isValid());
    // Before any QSettings or QStandardPaths use: they read these once.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home.filePath(QStringLiteral("config"))));
    qputenv("XDG_DATA_HOME", QFile::encodeName(m_home.filePath(QStringLiteral("data"))));
    qunsetenv("TORCHDECK_CONFIG_DIR");
    qunsetenv("TORCHDECK_DATA_DIR");
    setApplicationIdentity();
    QCOMPARE(QCoreApplication::organizationName(), QStringLiteral("torchdeck"));
    QCOMPARE(QCoreApplication::applicationName(), QStringLiteral("torchdeck"));
    QVERIFY(!QCoreApplication::applicationVersion().isEmpty());
    QCOMPARE(desktopFileName(), QStringLiteral("org.torchdeck.torchdeck"));
}

void TestAppIdentity::foldersStayWhereTheyWere()
{
    // Setting an organization moves Qt's AppConfigLocation to torchdeck/torchdeck; ours stay put.
    QCOMPARE(configDirectory(), m_home.filePath(QStringLiteral("config/torchdeck")));
    QCOMPARE(dataDirectory(), m_home.filePath(QStringLiteral("data/torchdeck")));
    QCOMPARE(QFileInfo(QSettings().fileName()).absolutePath(), configDirectory());
}

void TestAppIdentity::environmentChoosesTheFolders()
{
    qputenv("TORCHDECK_CONFIG_DIR", "/somewhere/config");
    qputenv("TORCHDECK_DATA_DIR", "/somewhere/data");
    QCOMPARE(configDirectory(), QStringLiteral("/somewhere/config"));
    QCOMPARE(dataDirectory(), QStringLiteral("/somewhere/data"));
    qunsetenv("TORCHDECK_CONFIG_DIR");
    qunsetenv("TORCHDECK_DATA_DIR");
}

void TestAppIdentity::legacySettingsAreCarriedOverOnce()
{
    const QString legacyPath = m_home.filePath(QStringLiteral("config/Unknown Organization/torchdeck.conf"));
    {
        QSettings legacy(legacyPath, QSettings::IniFormat);
        legacy.setValue(QStringLiteral("view/colorScheme"), QStringLiteral("dark"));
        legacy.setValue(QStringLiteral("runView/exportDir"), QStringLiteral("/home/me/plots"));
        legacy.setValue(QStringLiteral("window/geometry"), QByteArray("\x01\x02\x03", 3));
    }
    QVERIFY(QFileInfo::exists(legacyPath));
    QSettings().setValue(QStringLiteral("view/colorScheme"), QStringLiteral("light")); // chosen since: kept

    const SettingsMigration first = migrateLegacySettings();
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    QCOMPARE(first.from, legacyPath);
    QCOMPARE(first.moved, 2);
    const QSettings current;
    QCOMPARE(current.value(QStringLiteral("view/colorScheme")).toString(), QStringLiteral("light"));
    QCOMPARE(current.value(QStringLiteral("runView/exportDir")).toString(), QStringLiteral("/home/me/plots"));
    QCOMPARE(current.value(QStringLiteral("window/geometry")).toByteArray(), QByteArray("\x01\x02\x03", 3));
    QVERIFY(!QFileInfo::exists(legacyPath));
    QVERIFY(!QFileInfo::exists(QFileInfo(legacyPath).absolutePath()));

    const SettingsMigration second = migrateLegacySettings();
    QVERIFY(second.from.isEmpty());
    QCOMPARE(second.moved, 0);
}

void TestAppIdentity::noLegacySettingsNothingHappens()
{
    const SettingsMigration result = migrateLegacySettings();
    QVERIFY(result.from.isEmpty());
    QVERIFY(result.error.isEmpty());
}

TORCHDECK_TEST_MAIN(TestAppIdentity)
#include "tst_appidentity.moc"
