#include "term/forwardargs.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck::term;

Q_DECLARE_METATYPE(torchdeck::term::ForwardArgs::Action)

class TestForwardArgs : public QObject {
    Q_OBJECT
private slots:
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
};

void TestForwardArgs::accepted_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<ForwardArgs::Action>("action");
    QTest::addColumn<QString>("run");
    QTest::addColumn<int>("remotePort");
    QTest::addColumn<int>("localPort");
    QTest::addColumn<bool>("json");
    using A = ForwardArgs::Action;
    const QString run = QStringLiteral("1a2b3c4d");
    QTest::addRow("start") << QStringList{run, QStringLiteral("8000")} << A::Start << run << 8000 << 0 << false;
    QTest::addRow("start with a local port") << QStringList{run, QStringLiteral("8000"), QStringLiteral("18000")}
                                             << A::Start << run << 8000 << 18000 << false;
    QTest::addRow("json first") << QStringList{QStringLiteral("--json"), run, QStringLiteral("22")} << A::Start << run
                                << 22 << 0 << true;
    QTest::addRow("list") << QStringList{QStringLiteral("--list")} << A::List << QString() << 0 << 0 << false;
    QTest::addRow("list json") << QStringList{QStringLiteral("--list"), QStringLiteral("--json")} << A::List
                               << QString() << 0 << 0 << true;
    QTest::addRow("stop a port") << QStringList{QStringLiteral("--stop"), QStringLiteral("18000")} << A::Stop
                                 << QString() << 0 << 18000 << false;
    QTest::addRow("stop a run") << QStringList{QStringLiteral("--stop"), run} << A::Stop << run << 0 << 0 << false;
    QTest::addRow("stop a run named like a big number")
        << QStringList{QStringLiteral("--stop"), QStringLiteral("12345678")} << A::Stop << QStringLiteral("12345678")
        << 0 << 0 << false;
}

void TestForwardArgs::accepted()
{
    QFETCH(QStringList, args);
    QFETCH(ForwardArgs::Action, action);
    QFETCH(QString, run);
    QFETCH(int, remotePort);
    QFETCH(int, localPort);
    QFETCH(bool, json);
    const ForwardArgs parsed = parseForwardArgs(args);
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    QCOMPARE(parsed.action, action);
    QCOMPARE(parsed.run, run);
    QCOMPARE(parsed.remotePort, remotePort);
    QCOMPARE(parsed.localPort, localPort);
    QCOMPARE(parsed.json, json);
}

void TestForwardArgs::refused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    QTest::addRow("nothing") << QStringList{} << QStringLiteral("usage: torchdeck forward RUN REMOTE_PORT");
    QTest::addRow("no port") << QStringList{QStringLiteral("run")} << QStringLiteral("usage:");
    QTest::addRow("port 0") << QStringList{QStringLiteral("run"), QStringLiteral("0")}
                            << QStringLiteral("'0' is no port: 1 to 65535");
    QTest::addRow("bad local port") << QStringList{QStringLiteral("run"), QStringLiteral("80"), QStringLiteral("x")}
                                    << QStringLiteral("'x' is no port");
    QTest::addRow("too many") << QStringList{QStringLiteral("run"), QStringLiteral("80"), QStringLiteral("81"),
                                             QStringLiteral("82")}
                              << QStringLiteral("usage:");
    QTest::addRow("stop without a target") << QStringList{QStringLiteral("--stop")} << QStringLiteral("--stop needs");
    QTest::addRow("list and stop") << QStringList{QStringLiteral("--list"), QStringLiteral("--stop"),
                                                  QStringLiteral("80")}
                                   << QStringLiteral("--list or --stop, not both");
    QTest::addRow("list with a run") << QStringList{QStringLiteral("--list"), QStringLiteral("run")}
                                     << QStringLiteral("unexpected argument 'run'");
    QTest::addRow("unknown option") << QStringList{QStringLiteral("run"), QStringLiteral("80"), QStringLiteral("-L")}
                                    << QStringLiteral("unknown option '-L'");
}

void TestForwardArgs::refused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    const ForwardArgs parsed = parseForwardArgs(args);
    QVERIFY2(parsed.error.contains(says), qPrintable(parsed.error));
}

TORCHDECK_TEST_MAIN(TestForwardArgs)
#include "tst_forwardargs.moc"
