#include "core/jobs/jobspec.h"
#include "samplespecs.h"
#include "testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace torchdeck;

class TestJobSpecJson : public QObject {
    Q_OBJECT
private slots:
    void roundTrips_data();
    void roundTrips();
    void roundTripsThroughText();
    void missingKeysKeepDefaults();
    void namesUnknownKeys();
    void wallTimeAsText();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void survivesGarbage();
    void expandsLogPaths();
};

void TestJobSpecJson::roundTrips_data()
{
    QTest::addColumn<JobSpec>("spec");
    for (const testing::SampleSpec &sample : testing::sampleSpecs())
        QTest::newRow(sample.name) << sample.spec;
    JobSpec odd = testing::gpuPerNode();
    odd.environment.append({QStringLiteral("WEIRD"), QStringLiteral("a'b\"c $(x)\n\t λ")});
    odd.commandOn.append({QStringLiteral("puhti"), QStringLiteral("srun python3 'train.py' --data $SCRATCH")});
    odd.moveAfterSeconds = 1800;
    odd.container = {ContainerRuntime::Shifter, QStringLiteral("docker:nvcr.io/torch:23"), {}};
    odd.dependencies.append({DependencyKind::AfterAny, {QStringLiteral("1"), QStringLiteral("2")}});
    odd.checkpointSignalEnabled = false;
    odd.masterPort = 29500;
    odd.mpiAllowRunAsRoot = true;
    odd.oversubscribe = true;
    odd.requeueExitCode = 99;
    QTest::newRow("every field set") << odd;
    QTest::newRow("default") << JobSpec();
}

void TestJobSpecJson::roundTrips()
{
    QFETCH(JobSpec, spec);
    const JobSpec::FromJson back = JobSpec::fromJson(spec.toJson());
    QVERIFY2(back.ok(), qPrintable(back.error));
    QVERIFY(back.spec == spec);
}

void TestJobSpecJson::roundTripsThroughText()
{
    const JobSpec spec = testing::gpuPerNode();
    const QByteArray text = QJsonDocument(spec.toJson()).toJson();
    const JobSpec::FromJson back = JobSpec::fromJson(QJsonDocument::fromJson(text).object());
    QVERIFY(back.ok());
    QVERIFY(back.spec == spec);
}

void TestJobSpecJson::missingKeysKeepDefaults()
{
    const JobSpec::FromJson r = JobSpec::fromJson(QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}});
    QVERIFY(r.ok());
    JobSpec expected;
    expected.name = QStringLiteral("x");
    QVERIFY(r.spec == expected);
}

// A job file's typo would be passed over by fromJson: unknownJobSpecKeys names it, nested ones with their path.
void TestJobSpecJson::namesUnknownKeys()
{
    QCOMPARE(unknownJobSpecKeys(testing::gpuPerNode().toJson()), QStringList());
    const QJsonObject typos = QJsonDocument::fromJson(R"({"name": "x", "epochs": 3, "nodes": 2,
        "container": {"runtime": "apptainer", "imag": "a.sif"},
        "environment": [{"name": "A", "value": "1"}, {"name": "B", "valeu": "2"}],
        "dependencies": [{"kind": "after", "jobs": ["1"]}]})")
                                  .object();
    QCOMPARE(unknownJobSpecKeys(typos),
             (QStringList{QStringLiteral("container.imag"), QStringLiteral("dependencies[0].jobs"),
                          QStringLiteral("environment[1].valeu"), QStringLiteral("epochs")}));
}

void TestJobSpecJson::wallTimeAsText()
{
    const auto r = JobSpec::fromJson(QJsonObject{{QStringLiteral("wallTimeSeconds"), QStringLiteral("1-00:30:00")}});
    QVERIFY(r.ok());
    QCOMPARE(r.spec.wallTimeSeconds, qint64(86400 + 1800));
}

void TestJobSpecJson::rejectsBadInput_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("errorStart");
    QTest::addRow("nodes as text") << QByteArray(R"({"nodes": "2"})") << QStringLiteral("nodes:");
    QTest::addRow("fractional nodes") << QByteArray(R"({"nodes": 1.5})") << QStringLiteral("nodes:");
    QTest::addRow("negative gpus") << QByteArray(R"({"gpusPerNode": -1})") << QStringLiteral("gpusPerNode:");
    QTest::addRow("huge cpus") << QByteArray(R"({"cpusPerTask": 1e300})") << QStringLiteral("cpusPerTask:");
    QTest::addRow("unknown launch") << QByteArray(R"({"launch": "qrsh"})") << QStringLiteral("launch:");
    QTest::addRow("launch as number") << QByteArray(R"({"launch": 1})") << QStringLiteral("launch:");
    QTest::addRow("modules not array") << QByteArray(R"({"modules": "cuda"})") << QStringLiteral("modules:");
    QTest::addRow("module not string") << QByteArray(R"({"modules": ["cuda", 3]})") << QStringLiteral("modules:");
    QTest::addRow("env not objects") << QByteArray(R"({"environment": ["A=1"]})") << QStringLiteral("environment:");
    QTest::addRow("env value number") << QByteArray(R"({"environment": [{"name": "A", "value": 1}]})")
                                      << QStringLiteral("environment[0].value:");
    QTest::addRow("container not object") << QByteArray(R"({"container": "x.sif"})") << QStringLiteral("container:");
    QTest::addRow("container runtime") << QByteArray(R"({"container": {"runtime": "docker"}})")
                                       << QStringLiteral("container.runtime:");
    QTest::addRow("dependency kind") << QByteArray(R"({"dependencies": [{"kind": "before", "jobIds": ["1"]}]})")
                                     << QStringLiteral("dependencies[0].kind:");
    QTest::addRow("bad wall time text") << QByteArray(R"({"wallTimeSeconds": "soon"})")
                                        << QStringLiteral("wallTimeSeconds:");
    QTest::addRow("requeue as text") << QByteArray(R"({"requeue": "yes"})") << QStringLiteral("requeue:");
    QTest::addRow("exit code 0") << QByteArray(R"({"requeueExitCode": 0})") << QStringLiteral("requeueExitCode:");
    QTest::addRow("port too big") << QByteArray(R"({"masterPort": 70000})") << QStringLiteral("masterPort:");
    QTest::addRow("newer version") << QByteArray(R"({"version": 2})") << QStringLiteral("version:");
    QTest::addRow("null name") << QByteArray(R"({"name": null})") << QStringLiteral("name:");
}

void TestJobSpecJson::rejectsBadInput()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, errorStart);
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const JobSpec::FromJson r = JobSpec::fromJson(doc.object());
    QVERIFY(!r.ok());
    QVERIFY2(r.error.startsWith(errorStart), qPrintable(r.error));
    QVERIFY(r.spec == JobSpec()); // nothing half-read leaks out
}

void TestJobSpecJson::survivesGarbage()
{
    // Every key of a real spec replaced by values of every JSON type: never a crash, always a verdict.
    const QJsonObject good = testing::gpuPerNode().toJson();
    const QJsonValue odd[] = {QJsonValue(),
                              QJsonValue(true),
                              QJsonValue(-1),
                              QJsonValue(1e18),
                              QJsonValue(QString()),
                              QJsonValue(QJsonArray{1, QStringLiteral("a"), QJsonObject()}),
                              QJsonValue(QJsonObject{{QStringLiteral("k"), 1}})};
    for (auto it = good.begin(); it != good.end(); ++it) {
        for (const QJsonValue &value : odd) {
            QJsonObject broken = good;
            broken.insert(it.key(), value);
            const JobSpec::FromJson r = JobSpec::fromJson(broken);
            QVERIFY(r.ok() || r.error.startsWith(it.key()));
        }
    }
}

void TestJobSpecJson::expandsLogPaths()
{
    QCOMPARE(expandLogPath(QStringLiteral("/l/%x-%j.out"), QStringLiteral("123"), QStringLiteral("run")),
             QStringLiteral("/l/run-123.out"));
    QCOMPARE(expandLogPath(QStringLiteral("100%%-%j%"), QStringLiteral("9"), QString()), QStringLiteral("100%-9%"));
    JobSpec spec;
    spec.name = QStringLiteral("n");
    QCOMPARE(effectiveOutputPath(spec), QStringLiteral("n-%j.out"));
    spec.workingDirectory = QStringLiteral("/w/");
    QCOMPARE(effectiveOutputPath(spec), QStringLiteral("/w/n-%j.out"));
    spec.outputPath = QStringLiteral("logs/o.txt");
    spec.errorPath = QStringLiteral("/abs/e.txt");
    QCOMPARE(effectiveOutputPath(spec), QStringLiteral("/w/logs/o.txt"));
    QCOMPARE(effectiveErrorPath(spec), QStringLiteral("/abs/e.txt"));
}

TORCHDECK_TEST_MAIN(TestJobSpecJson)
#include "tst_jobspecjson.moc"
