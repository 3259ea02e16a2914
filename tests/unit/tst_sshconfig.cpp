#include "core/sshconfigparser.h"
#include "testmain.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;

class TestSshConfig : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void listsConcreteAliasesInFileOrder();
    void namesItsHostsNotEveryHost();
    void firstValueWins();
    void wildcardBlocksApply();
    void hostNameTokenAndProxyJump();
    void includedFileIsRead();
    void malformedLinesAreWarningsNotErrors();
    void missingFileIsEmpty();
    void aFileIncludingItselfIsReadOnce();
    void hashKnownHostsIsRead();
    void lineSplitting_data();
    void lineSplitting();
    void patterns_data();
    void patterns();

private:
    SshConfig m_config;
};

void TestSshConfig::initTestCase()
{
    const QString dir = QStringLiteral(TORCHDECK_TEST_DATA "/sshconfig");
    m_config = readSshConfig(dir + QStringLiteral("/config"), dir);
}

void TestSshConfig::listsConcreteAliasesInFileOrder()
{
    QCOMPARE(m_config.hostAliases(),
             QStringList({QStringLiteral("torchdeck-sandbox"), QStringLiteral("narvi"), QStringLiteral("sockeye"),
                          QStringLiteral("bastion"), QStringLiteral("broken")}));
}

// What the agent serves: a host the config names, by alias or by a pattern (cc-* matches cc-7); not any host,
// which the catch-all Host * would.
void TestSshConfig::namesItsHostsNotEveryHost()
{
    QVERIFY(m_config.names(QStringLiteral("narvi")));
    QVERIFY(m_config.names(QStringLiteral("cc-7")));
    QVERIFY(m_config.names(QStringLiteral("torchdeck-sandbox"))); // from an included file
    QVERIFY(!m_config.names(QStringLiteral("nosuchcluster")));
    QVERIFY(!m_config.names(QStringLiteral("cc")));
}

void TestSshConfig::firstValueWins()
{
    const SshHost narvi = m_config.resolve(QStringLiteral("narvi"));
    QCOMPARE(narvi.hostName, QStringLiteral("narvi.tut.fi"));
    QCOMPARE(narvi.user, QStringLiteral("alice"));
    QCOMPARE(narvi.port, 22);
    QCOMPARE(narvi.identityFiles, QStringList({QDir::homePath() + QStringLiteral("/.ssh/id_narvi"),
                                               QDir::homePath() + QStringLiteral("/.ssh/id_ed25519")}));
}

void TestSshConfig::wildcardBlocksApply()
{
    const SshHost bastion = m_config.resolve(QStringLiteral("bastion"));
    QCOMPARE(bastion.hostName, QStringLiteral("bastion.example.org"));
    QCOMPARE(bastion.port, 2200);
    QCOMPARE(bastion.user, QStringLiteral("defaultuser"));
}

void TestSshConfig::hostNameTokenAndProxyJump()
{
    const SshHost cc = m_config.resolve(QStringLiteral("cc-cedar"));
    QCOMPARE(cc.hostName, QStringLiteral("cc-cedar.hpc.example.org"));
    QCOMPARE(cc.port, 2222);
    QCOMPARE(cc.proxyJump, QStringLiteral("bastion"));
}

void TestSshConfig::includedFileIsRead()
{
    const SshHost sandbox = m_config.resolve(QStringLiteral("torchdeck-sandbox"));
    QCOMPARE(sandbox.hostName, QStringLiteral("127.0.0.1"));
    QCOMPARE(sandbox.port, 40022);
    QCOMPARE(sandbox.userKnownHostsFile, QStringLiteral("/state/ssh/known_hosts"));
}

void TestSshConfig::malformedLinesAreWarningsNotErrors()
{
    QCOMPARE(m_config.warnings.size(), 1);
    QVERIFY2(m_config.warnings.first().contains(QStringLiteral("'port' has no value")),
             qPrintable(m_config.warnings.first()));
    QCOMPARE(m_config.resolve(QStringLiteral("broken")).port, 22);
}

void TestSshConfig::missingFileIsEmpty()
{
    const SshConfig none = readSshConfig(QStringLiteral("/nonexistent/config"), QStringLiteral("/nonexistent"));
    QVERIFY(none.hostAliases().isEmpty());
    QVERIFY(none.warnings.isEmpty());
}

// ssh stops an Include loop only at its depth limit (16): a file that includes itself twice would be read
// 2^16 times.
void TestSshConfig::aFileIncludingItselfIsReadOnce()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile config(dir.filePath(QStringLiteral("config")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("Host looped\n  Port 2200\nInclude config\nInclude config\n");
    config.close();
    QElapsedTimer timer;
    timer.start();
    const SshConfig read = readSshConfig(config.fileName(), dir.path());
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(read.hostAliases(), QStringList{QStringLiteral("looped")});
    QCOMPARE(read.resolve(QStringLiteral("looped")).port, 2200);
    QCOMPARE(read.warnings.size(), 2);
    QVERIFY2(read.warnings.first().contains(QStringLiteral("includes itself")), qPrintable(read.warnings.first()));
}

void TestSshConfig::hashKnownHostsIsRead()
{
    QTemporaryDir dir;
    QFile config(dir.filePath(QStringLiteral("config")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("Host hashed\n  HashKnownHosts yes\nHost plain\n  HostName p\nHost *\n  HashKnownHosts no\n");
    config.close();
    const SshConfig read = readSshConfig(config.fileName(), dir.path());
    QVERIFY(read.resolve(QStringLiteral("hashed")).hashKnownHosts);
    QVERIFY(!read.resolve(QStringLiteral("plain")).hashKnownHosts);
    // As OpenSSH writes it (checked against Python's hmac): |1|base64(salt)|base64(HMAC-SHA1(salt, host)).
    QByteArray salt;
    for (char byte = 0; byte < 20; ++byte)
        salt.append(byte);
    QCOMPARE(hashedKnownHostName(QStringLiteral("[127.0.0.1]:2222"), salt),
             QStringLiteral("|1|AAECAwQFBgcICQoLDA0ODxAREhM=|zKYaAqmSav3Qxr2sffNqWFIcbe4="));
}

void TestSshConfig::lineSplitting_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("keyword");
    QTest::addColumn<QStringList>("args");
    QTest::addRow("blank") << QStringLiteral("   ") << QString() << QStringList();
    QTest::addRow("comment") << QStringLiteral("  # Host x") << QString() << QStringList();
    QTest::addRow("spaces") << QStringLiteral("  HostName   a.b ") << QStringLiteral("hostname")
                            << QStringList{QStringLiteral("a.b")};
    QTest::addRow("equals") << QStringLiteral("Port=22") << QStringLiteral("port") << QStringList{QStringLiteral("22")};
    QTest::addRow("equals spaced") << QStringLiteral("Port = 22") << QStringLiteral("port")
                                   << QStringList{QStringLiteral("22")};
    QTest::addRow("quoted") << QStringLiteral("IdentityFile \"/my keys/id\" other") << QStringLiteral("identityfile")
                            << QStringList{QStringLiteral("/my keys/id"), QStringLiteral("other")};
    QTest::addRow("tab") << QStringLiteral("Host\ta b") << QStringLiteral("host")
                         << QStringList{QStringLiteral("a"), QStringLiteral("b")};
}

void TestSshConfig::lineSplitting()
{
    QFETCH(QString, line);
    QFETCH(QString, keyword);
    QFETCH(QStringList, args);
    const SshConfigLine parsed = parseSshConfigLine(line);
    QCOMPARE(parsed.keyword, keyword);
    QCOMPARE(parsed.args, args);
}

void TestSshConfig::patterns_data()
{
    QTest::addColumn<QStringList>("patterns");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("matches");
    QTest::addRow("exact") << QStringList{QStringLiteral("narvi")} << QStringLiteral("narvi") << true;
    QTest::addRow("other") << QStringList{QStringLiteral("narvi")} << QStringLiteral("narvi2") << false;
    QTest::addRow("star") << QStringList{QStringLiteral("cc-*")} << QStringLiteral("cc-graham") << true;
    QTest::addRow("question") << QStringList{QStringLiteral("n?")} << QStringLiteral("n1") << true;
    QTest::addRow("negated") << QStringList{QStringLiteral("*"), QStringLiteral("!bastion")}
                             << QStringLiteral("bastion") << false;
    QTest::addRow("only negated") << QStringList{QStringLiteral("!x")} << QStringLiteral("y") << false;
    QTest::addRow("no patterns") << QStringList{} << QStringLiteral("any") << true;
}

void TestSshConfig::patterns()
{
    QFETCH(QStringList, patterns);
    QFETCH(QString, host);
    QFETCH(bool, matches);
    QCOMPARE(sshHostMatches(patterns, host), matches);
}

TORCHDECK_TEST_MAIN(TestSshConfig)
#include "tst_sshconfig.moc"
