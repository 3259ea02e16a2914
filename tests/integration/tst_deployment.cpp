// Trainer deployment against the sandbox: the real embedded trainer is uploaded, built by the sandbox's
// cmake against its LibTorch, and reused on the second deployment; a broken bundle shows the compiler error.
#include "remote/connection.h"
#include "remote/trainerdeployment.h"
#include "sandboxconnection.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace torchdeck;
using namespace torchdeck::remote;

class TestDeployment : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void bundleIsComplete();
    void deploysBuildsAndReuses();
    void failedBuildShowsTheCompilerError();

private:
    struct Outcome {
        QList<QVariant> finished;
        QString error;
        QString output;
        int progressSignals = 0;
    };
    Outcome deploy(const TrainerBundle &bundle, int timeoutMs);

    std::unique_ptr<Connection> m_connection;
    // Under the sandbox's directory, the base of its build cache (scripts/lib/sandbox-config.sh): term.deployed
    // builds the same trainer from it.
    QTemporaryDir m_work{qEnvironmentVariable("TORCHDECK_SANDBOX_DIR", QDir::tempPath()) +
                         QStringLiteral("/deployment-XXXXXX")};
};

void TestDeployment::initTestCase()
{
    if (!testing::sandboxRunning())
        QSKIP("the sandbox is not running (run through ctest, which starts it)");
    QString error;
    m_connection = testing::openSandboxConnection(&error);
    QVERIFY2(m_connection, qPrintable(error));
}

TestDeployment::Outcome TestDeployment::deploy(const TrainerBundle &bundle, int timeoutMs)
{
    DeploySettings settings;
    settings.workDirectory = m_work.path();
    TrainerDeployment deployment(m_connection.get(), bundle, settings);
    Outcome outcome;
    QSignalSpy finished(&deployment, &TrainerDeployment::finished);
    connect(&deployment, &TrainerDeployment::failed, this, [&](const QString &error) { outcome.error = error; });
    connect(&deployment, &TrainerDeployment::output, this, [&](const QString &text) { outcome.output += text; });
    connect(&deployment, &TrainerDeployment::progress, this, [&] { ++outcome.progressSignals; });
    deployment.start();
    [&] { QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1 || !outcome.error.isEmpty(), timeoutMs); }();
    if (!finished.isEmpty())
        outcome.finished = finished.first();
    return outcome;
}

void TestDeployment::bundleIsComplete()
{
    const TrainerBundle bundle = TrainerBundle::embedded();
    QStringList paths;
    for (const TrainerBundle::File &file : bundle.files)
        paths.append(file.relativePath);
    QVERIFY(paths.contains(QStringLiteral("CMakeLists.txt")));
    QVERIFY(paths.contains(QStringLiteral("main.cpp")));
    QCOMPARE(bundle.hash.size(), 16);
    QCOMPARE(TrainerBundle::embedded().hash, bundle.hash); // deterministic
    TrainerBundle changed = bundle;
    changed.files.first().content += ' ';
    QVERIFY(changed.files.first().content != bundle.files.first().content);
}

void TestDeployment::deploysBuildsAndReuses()
{
    const TrainerBundle bundle = TrainerBundle::embedded();
    const Outcome first = deploy(bundle, 1500000);
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    const auto result = first.finished.first().value<DeployResult>();
    QVERIFY(!result.reused);
    QCOMPARE(result.hash, bundle.hash);
    QCOMPARE(result.binary,
             m_work.path() + QStringLiteral("/trainer/") + bundle.hash + QStringLiteral("/build/torchdeck-train"));
    QVERIFY2(first.output.contains(QStringLiteral("Built target torchdeck-train")),
             qPrintable(first.output.right(2000)));
    QVERIFY(first.output.contains(QStringLiteral("torchdeck-train ")));
    QVERIFY(first.progressSignals > bundle.files.size() / 2);
    const QFile uploaded(m_work.path() + QStringLiteral("/trainer/") + bundle.hash + QStringLiteral("/main.cpp"));
    QVERIFY(uploaded.exists());

    const Outcome second = deploy(bundle, 60000);
    QVERIFY2(second.error.isEmpty(), qPrintable(second.error));
    QVERIFY(second.finished.first().value<DeployResult>().reused);
    QVERIFY(!second.output.contains(QStringLiteral("Building")));
}

void TestDeployment::failedBuildShowsTheCompilerError()
{
    TrainerBundle broken;
    broken.hash = QStringLiteral("brokenbundle0001");
    broken.files = {{QStringLiteral("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\nproject(broken "
                                                       "CXX)\nadd_executable(torchdeck-train main.cpp)\n"},
                    {QStringLiteral("main.cpp"), "int main() { return undeclared_name; }\n"}};
    const Outcome outcome = deploy(broken, 120000);
    QVERIFY(outcome.finished.isEmpty());
    QVERIFY2(outcome.error.startsWith(QStringLiteral("building the trainer failed")), qPrintable(outcome.error));
    QVERIFY2(outcome.error.contains(QStringLiteral("undeclared_name")), qPrintable(outcome.error));
    QVERIFY(outcome.output.contains(QStringLiteral("error:")));
}

QTEST_GUILESS_MAIN(TestDeployment)
#include "tst_deployment.moc"
