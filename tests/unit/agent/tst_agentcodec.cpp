// The value types that cross the agent's socket come back as they were sent, and a field of the wrong type
// names itself instead of passing.
#include "core/agent/agentcodec.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestAgentCodec : public QObject {
    Q_OBJECT
private slots:
    void launchRequestRoundTrips();
    void launchRequestWithABrokenSpecIsRefused();
    void metricEventsRoundTrip();
    void questionsAndCheckLinesRoundTrip();
    void statusRoundTrips();
    void aWrongFieldIsNamed_data();
    void aWrongFieldIsNamed();
};

void TestAgentCodec::launchRequestRoundTrips()
{
    LaunchRequest request;
    request.profile = defaultProfile(QStringLiteral("alpha"));
    request.profile.partition = QStringLiteral("gpu");
    request.profile.inJobRequeue = InJobRequeue::Allowed;
    request.spec.name = QStringLiteral("it's $(x)");
    request.spec.nodes = 2;
    request.spec.requeue = true;
    request.runId = QStringLiteral("1234");
    request.attempt = 3;
    request.resume = ResumeFrom::latest();
    request.script = QStringLiteral("#!/bin/bash\necho hi\n");
    request.after = {SubmitDependency::AfterNotOk, {QStringLiteral("77")}};
    QString error;
    const std::optional<LaunchRequest> read = launchRequestFromCbor(launchRequestToCbor(request), &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(read->profile, request.profile);
    QCOMPARE(read->spec, request.spec);
    QCOMPARE(read->runId, request.runId);
    QCOMPARE(read->attempt, request.attempt);
    QCOMPARE(read->resume, request.resume);
    QCOMPARE(read->script, request.script);
    QCOMPARE(int(read->after.kind), int(request.after.kind));
    QCOMPARE(read->after.jobIds, request.after.jobIds);
}

void TestAgentCodec::launchRequestWithABrokenSpecIsRefused()
{
    LaunchRequest request;
    request.profile = defaultProfile(QStringLiteral("alpha"));
    QCborMap map = launchRequestToCbor(request);
    map.insert(QStringLiteral("spec"), QCborMap{{QStringLiteral("nodes"), QStringLiteral("many")}});
    QString error;
    QVERIFY(!launchRequestFromCbor(map, &error));
    QVERIFY2(error.startsWith(QStringLiteral("spec: ")), qPrintable(error));
}

void TestAgentCodec::metricEventsRoundTrip()
{
    MetricEvent step;
    step.kind = MetricEventKind::Step;
    step.source = MetricSource::Log;
    step.time = 1700000000.5;
    step.epoch = 2;
    step.step = 120;
    step.loss = 0.25;
    step.stepCounted = true;
    step.epochFromZero = true;
    step.extras = {{QStringLiteral("grad_norm"), 1.5}};
    step.rankComputeSeconds = {0.25, 0.75};
    step.rankWaitSeconds = {0.5, 0.0};
    MetricEvent stop;
    stop.kind = MetricEventKind::Stop;
    stop.exitCode = 75;
    stop.signal = QStringLiteral("USR1");
    stop.reason = QStringLiteral("signal");
    MetricEvent start;
    start.kind = MetricEventKind::Start;
    start.worldSize = 4;
    start.resumed = true;
    start.resumeStep = 100;
    QString error;
    const auto read = metricEventsFromCbor(metricEventsToCbor({step, stop, start}), &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(read->size(), 3);
    const MetricEvent &s = read->at(0);
    QCOMPARE(int(s.source), int(MetricSource::Log));
    QCOMPARE(s.time, step.time);
    QCOMPARE(s.step, 120);
    QCOMPARE(s.loss, 0.25);
    QVERIFY(s.stepCounted);
    QVERIFY(s.epochFromZero);
    QVERIFY(!MetricEvent::has(s.valLoss));
    QCOMPARE(s.extras, step.extras);
    QCOMPARE(s.rankComputeSeconds, step.rankComputeSeconds);
    QCOMPARE(s.rankWaitSeconds, step.rankWaitSeconds);
    QVERIFY(read->at(1).rankComputeSeconds.isEmpty());
    QCOMPARE(read->at(1).exitCode, 75);
    QCOMPARE(read->at(1).signal, QStringLiteral("USR1"));
    QCOMPARE(read->at(2).worldSize, 4);
    QVERIFY(read->at(2).resumed);
    QCOMPARE(read->at(2).resumeStep, 100);
}

void TestAgentCodec::questionsAndCheckLinesRoundTrip()
{
    QString error;
    const HostKeyCheck key{HostKeyStatus::Unknown, QStringLiteral("ssh-ed25519"), QStringLiteral("SHA256:abc"), {}};
    const auto readKey = hostKeyFromCbor(hostKeyToCbor(key), &error);
    QVERIFY2(readKey, qPrintable(error));
    QCOMPARE(readKey->fingerprintSha256, key.fingerprintSha256);
    CredentialPrompt prompt;
    prompt.kind = CredentialPrompt::Kind::KeyboardInteractive;
    prompt.host = QStringLiteral("alpha");
    prompt.instruction = QStringLiteral("Two factors");
    prompt.text = QStringLiteral("Verification code:");
    const auto readPrompt = credentialPromptFromCbor(credentialPromptToCbor(prompt), &error);
    QVERIFY2(readPrompt, qPrintable(error));
    QCOMPARE(int(readPrompt->kind), int(prompt.kind));
    QCOMPARE(readPrompt->text, prompt.text);
    const CheckItem item{QStringLiteral("In-job requeue"), true, QStringLiteral("allowed"), false,
                         QStringLiteral("allowed")};
    const auto readItem = checkItemFromCbor(checkItemToCbor(item), &error);
    QVERIFY2(readItem, qPrintable(error));
    QCOMPARE(readItem->finding, item.finding);
    ClusterCheckSettings settings;
    settings.probeRequeue = true;
    settings.partition = QStringLiteral("debug");
    settings.reach = {QStringLiteral("other=-p 22 me@login.other.org")};
    const auto readSettings = checkSettingsFromCbor(checkSettingsToCbor(settings), &error);
    QVERIFY2(readSettings, qPrintable(error));
    QVERIFY(readSettings->probeRequeue);
    QCOMPARE(readSettings->partition, settings.partition);
    QCOMPARE(readSettings->reach, settings.reach);
}

void TestAgentCodec::statusRoundTrips()
{
    AgentStatus status;
    status.pid = 4242;
    status.version = QStringLiteral("0.1.0+1");
    status.started = QDateTime::fromSecsSinceEpoch(1700000000);
    status.idleExitMinutes = 10;
    status.clusters = {{QStringLiteral("alpha"),
                        ConnectionState::Connected,
                        {},
                        2,
                        false,
                        3000,
                        {12, 5, 300, 4096, QStringLiteral("login-node follower (compiled)"), {}}}};
    status.clients = {{QStringLiteral("window"), 17, true}};
    QString error;
    const auto read = agentStatusFromCbor(agentStatusToCbor(status), &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(read->pid, 4242);
    QCOMPARE(read->started, status.started);
    QCOMPARE(read->clusters.size(), 1);
    QCOMPARE(int(read->clusters.constFirst().state), int(ConnectionState::Connected));
    QCOMPARE(read->clusters.constFirst().runsWatched, 2);
    QCOMPARE(read->clusters.constFirst().load.commands, 12);
    QCOMPARE(read->clusters.constFirst().load.schedulerQueries, 5);
    QCOMPARE(read->clusters.constFirst().load.sftpRequests, 300);
    QCOMPARE(read->clusters.constFirst().load.bytesIn, 4096);
    QCOMPARE(read->clusters.constFirst().load.following, QStringLiteral("login-node follower (compiled)"));
    QCOMPARE(read->clients.constFirst().front, QStringLiteral("window"));
}

void TestAgentCodec::aWrongFieldIsNamed_data()
{
    QTest::addColumn<QCborMap>("map");
    QTest::addColumn<QString>("field");
    QCborMap result = launchResultToCbor({QStringLiteral("r"), 0, QStringLiteral("5"), {}, {}});
    result.insert(QStringLiteral("attempt"), QStringLiteral("first"));
    QTest::addRow("attempt as text") << result << QStringLiteral("attempt");
    QCborMap noRun = launchResultToCbor({});
    noRun.remove(QStringLiteral("run"));
    QTest::addRow("no run") << noRun << QStringLiteral("run");
    QCborMap state = agentStatusToCbor({});
    state.insert(QStringLiteral("pid"), -5);
    QTest::addRow("negative pid") << state << QStringLiteral("pid");
}

void TestAgentCodec::aWrongFieldIsNamed()
{
    QFETCH(QCborMap, map);
    QFETCH(QString, field);
    QString error;
    const bool read = QTest::currentDataTag() == QByteArrayLiteral("negative pid")
                          ? agentStatusFromCbor(map, &error).has_value()
                          : launchResultFromCbor(map, &error).has_value();
    QVERIFY(!read);
    QVERIFY2(error.startsWith(field + u':'), qPrintable(error));
}

TORCHDECK_TEST_MAIN(TestAgentCodec)
#include "tst_agentcodec.moc"
