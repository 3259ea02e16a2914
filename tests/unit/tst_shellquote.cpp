#include "core/shellquote.h"
#include "testmain.h"

#include <QProcess>
#include <QTest>

using torchdeck::shellJoin;
using torchdeck::shellQuote;

class TestShellQuote : public QObject {
    Q_OBJECT
private slots:
    void roundTripThroughBash_data();
    void roundTripThroughBash();
    void safeWordsStayReadable();
    void joinQuotesEachWord();
};

void TestShellQuote::roundTripThroughBash_data()
{
    QTest::addColumn<QString>("word");
    QTest::addRow("empty") << QString();
    QTest::addRow("space") << QStringLiteral("my job");
    QTest::addRow("single quote") << QStringLiteral("it's");
    QTest::addRow("double quote") << QStringLiteral("say \"hi\"");
    QTest::addRow("command substitution") << QStringLiteral("$(touch /tmp/pwned)");
    QTest::addRow("backticks") << QStringLiteral("`id`");
    QTest::addRow("variable") << QStringLiteral("$HOME ${PATH}");
    QTest::addRow("newline") << QStringLiteral("a\nb; rm -rf ~");
    QTest::addRow("glob") << QStringLiteral("*");
    QTest::addRow("backslash") << QStringLiteral("a\\b\\'");
    QTest::addRow("leading dash") << QStringLiteral("-n");
    QTest::addRow("unicode") << QStringLiteral("λόγος 日本");
    QTest::addRow("only quotes") << QStringLiteral("''''");
}

void TestShellQuote::roundTripThroughBash()
{
    QFETCH(QString, word);
    QProcess bash;
    bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), QStringLiteral("printf '%s' ") + shellQuote(word)});
    QVERIFY(bash.waitForFinished(10000));
    QCOMPARE(bash.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(bash.readAllStandardOutput()), word);
}

void TestShellQuote::safeWordsStayReadable()
{
    QCOMPARE(shellQuote(QStringLiteral("--epochs=10")), QStringLiteral("--epochs=10"));
    QCOMPARE(shellQuote(QStringLiteral("/scratch/run_1/ckpt.pt")), QStringLiteral("/scratch/run_1/ckpt.pt"));
    QCOMPARE(shellQuote(QStringLiteral("a b")), QStringLiteral("'a b'"));
}

void TestShellQuote::joinQuotesEachWord()
{
    QProcess bash;
    const QStringList argv{QStringLiteral("a b"), QStringLiteral("$(x)"), QString()};
    bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), QStringLiteral("printf '[%s]' ") + shellJoin(argv)});
    QVERIFY(bash.waitForFinished(10000));
    QCOMPARE(bash.readAllStandardOutput(), QByteArray("[a b][$(x)][]"));
}

TORCHDECK_TEST_MAIN(TestShellQuote)
#include "tst_shellquote.moc"
