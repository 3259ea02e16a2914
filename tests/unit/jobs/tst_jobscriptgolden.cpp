// Rendered scripts compared byte for byte with tests/data/jobs/<name>.sh.
// Regenerate after an intended change: TORCHDECK_UPDATE_GOLDEN=1 ./unit_jobs jobscriptgolden, then review the diff.
#include "core/jobs/jobscript.h"
#include "samplespecs.h"
#include "testmain.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

using namespace torchdeck;

class TestJobScriptGolden : public QObject {
    Q_OBJECT
private slots:
    void matchesGolden_data();
    void matchesGolden();
    void passesShellcheck_data() { matchesGolden_data(); }
    void passesShellcheck();
};

namespace {

QString goldenPath(const QString &name)
{
    return QStringLiteral(TORCHDECK_TEST_DATA "/jobs/") + name + QStringLiteral(".sh");
}

} // namespace

void TestJobScriptGolden::matchesGolden_data()
{
    QTest::addColumn<JobSpec>("spec");
    QTest::addColumn<ClusterCaps>("caps");
    for (const testing::SampleSpec &sample : testing::sampleSpecs())
        QTest::newRow(sample.name) << sample.spec << sample.caps;
}

void TestJobScriptGolden::matchesGolden()
{
    QFETCH(JobSpec, spec);
    QFETCH(ClusterCaps, caps);
    const ScriptResult result = renderJobScript(spec, caps);
    QVERIFY2(result.ok(), qPrintable(formatJobSpecErrors(result.errors)));
    const QByteArray rendered = result.script.toUtf8();
    QFile golden(goldenPath(QString::fromUtf8(QTest::currentDataTag())));
    if (qEnvironmentVariableIntValue("TORCHDECK_UPDATE_GOLDEN") == 1) {
        QVERIFY2(golden.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(golden.fileName()));
        golden.write(rendered);
        qInfo("updated %s", qPrintable(golden.fileName()));
        return;
    }
    QVERIFY2(golden.open(QIODevice::ReadOnly),
             qPrintable(golden.fileName() + QStringLiteral(" is missing: run with TORCHDECK_UPDATE_GOLDEN=1")));
    QCOMPARE(QString::fromUtf8(rendered), QString::fromUtf8(golden.readAll()));
}

void TestJobScriptGolden::passesShellcheck()
{
    QFETCH(JobSpec, spec);
    QFETCH(ClusterCaps, caps);
    const ScriptResult result = renderJobScript(spec, caps);
    QVERIFY(result.ok());
    QProcess bash;
    bash.start(QStringLiteral("bash"), {QStringLiteral("-n")});
    bash.write(result.script.toUtf8());
    bash.closeWriteChannel();
    QVERIFY(bash.waitForFinished(10000));
    QVERIFY2(bash.exitCode() == 0, bash.readAllStandardError().constData());

    if (QStandardPaths::findExecutable(QStringLiteral("shellcheck")).isEmpty())
        QSKIP("shellcheck is not installed (bash -n passed)");
    QProcess check;
    // SC2317: shellcheck cannot see that trap handlers are called. SC2016: a custom command is single-quoted
    // on purpose, its expansions are for the `bash -c` that runs it.
    check.start(QStringLiteral("shellcheck"),
                {QStringLiteral("--shell=bash"), QStringLiteral("--exclude=SC2317,SC2016"), QStringLiteral("-")});
    check.write(result.script.toUtf8());
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(30000));
    QVERIFY2(check.exitCode() == 0, check.readAllStandardOutput().constData());
}

TORCHDECK_TEST_MAIN(TestJobScriptGolden)
#include "tst_jobscriptgolden.moc"
