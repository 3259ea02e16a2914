#pragma once

// What the GUI's sandbox tests share: a private config and data dir with a profile of the sandbox that uses
// the prebuilt trainer (as tests/integration/term_test.sh sets it up), and a small trainer job.
#include "core/jobs/jobspec.h"
#include "core/profiles/profilestore.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace torchdeck::testing {

inline const QString kSandboxHost = QStringLiteral("torchdeck-sandbox");

inline bool sandboxRunning()
{
    const QString dir = qEnvironmentVariable("TORCHDECK_SANDBOX_DIR");
    return !dir.isEmpty() && QFile::exists(dir + QStringLiteral("/run/pids"));
}

// Sets TORCHDECK_CONFIG_DIR / TORCHDECK_DATA_DIR under `home` and saves the sandbox's profile there.
inline QString prepareSandboxHome(const QString &home)
{
    QDir().mkpath(home + QStringLiteral("/config"));
    QDir().mkpath(home + QStringLiteral("/data"));
    qputenv("TORCHDECK_CONFIG_DIR", QFile::encodeName(home + QStringLiteral("/config")));
    qputenv("TORCHDECK_DATA_DIR", QFile::encodeName(home + QStringLiteral("/data")));
    ProfileStore profiles;
    QString error;
    if (!profiles.load(&error))
        return error;
    ClusterProfile profile = profiles.profile(kSandboxHost);
    profile.workDirectory = home + QStringLiteral("/work");
    profile.trainerBinary = qEnvironmentVariable("TORCHDECK_TRAIN_BINARY");
    profile.minPollSeconds = 1; // the sandbox is on this machine: its scheduler may be asked every second
    profiles.put(profile);
    return profiles.save(&error) ? QString() : error;
}

// Whether a sandbox test runs the prebuilt trainer (TORCHDECK_TRAIN_BINARY).
enum class TrainerUse { None, Prebuilt };

// A sandbox test's initTestCase: QStandardPaths in test mode (QSettings stay out of the user's config), the
// sandbox running, the trainer given where the test runs it, and `home` usable and prepared (prepareSandboxHome).
inline void initSandboxTest(const QTemporaryDir &home, TrainerUse trainer = TrainerUse::None)
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY2(sandboxRunning(), "the sandbox fixture is not running (ctest -R 'sandbox.start|gui')");
    if (trainer == TrainerUse::Prebuilt)
        QVERIFY2(!qEnvironmentVariableIsEmpty("TORCHDECK_TRAIN_BINARY"), "TORCHDECK_TRAIN_BINARY is not set");
    QVERIFY(home.isValid());
    const QString problem = prepareSandboxHome(home.path());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

inline JobSpec smallTrainerJob(int epochs)
{
    JobSpec spec;
    spec.name = QStringLiteral("gui-test");
    spec.tasksPerNode = 2;
    spec.wallTimeSeconds = 600;
    spec.trainerArgs = {QStringLiteral("--model"),      QStringLiteral("ae"),
                        QStringLiteral("--data"),       QStringLiteral("fashion-mnist"),
                        QStringLiteral("--epochs"),     QString::number(epochs),
                        QStringLiteral("--batch-size"), QStringLiteral("64"),
                        QStringLiteral("--lr"),         QStringLiteral("0.001"),
                        QStringLiteral("--optimizer"),  QStringLiteral("adam"),
                        QStringLiteral("--limit"),      QStringLiteral("4096"),
                        QStringLiteral("--threads"),    QStringLiteral("1"),
                        QStringLiteral("--log-every"),  QStringLiteral("16")};
    return spec;
}

} // namespace torchdeck::testing

// Submitting through the window's own code path: Ctrl+N's dialog, its form, its Submit.
#include "client/agentclient.h"
#include "core/store/runstore.h"
#include "gui/clusterlistmodel.h"
#include "gui/jobform.h"
#include "gui/mainwindow.h"
#include "gui/newjobdialog.h"
#include "gui/runtreemodel.h"
#include "gui/submissionpanel.h"
#include "session/agent.h"
#include "session/clustersessions.h"

#include <QSignalSpy>
#include <QTest>
#include <memory>

namespace torchdeck::testing {

struct FormSubmission {
    LaunchResult result;
    QString error; // empty: submitted
};

inline FormSubmission submitThroughForm(MainWindow &window, const JobSpec &spec, int timeoutMs = 180000)
{
    NewJobDialog *dialog = window.openNewJob();
    dialog->setCluster(kSandboxHost);
    dialog->form()->setSpec(spec);
    if (!dialog->form()->errors().isEmpty())
        return {{}, formatJobSpecErrors(dialog->form()->errors())};
    QSignalSpy submitted(dialog, &NewJobDialog::submitted);
    QSignalSpy failed(dialog->panel(), &SubmissionPanel::failed);
    dialog->submit();
    if (!QTest::qWaitFor([&] { return !submitted.isEmpty() || !failed.isEmpty(); }, timeoutMs))
        return {{}, QString(QStringLiteral("no answer; output: ") + dialog->panel()->outputText())};
    if (submitted.isEmpty())
        return {{},
                QString(failed.constFirst().constFirst().toString() + QStringLiteral("; output: ") +
                        dialog->panel()->outputText())};
    FormSubmission done{submitted.constFirst().constFirst().value<LaunchResult>(), {}};
    dialog->close();
    return done;
}

// An agent in the test's own process, on the test's store (TORCHDECK_DATA_DIR is set first): the window under
// test attaches to it over its socket as to any agent, and the test can look into its sessions. Made before the
// window, gone with the test function.
struct TestAgent {
    TestAgent() { started = agent.start(&error); }
    ClusterSession *session(const QString &cluster = kSandboxHost) const { return agent.sessions()->existing(cluster); }
    Agent agent;
    bool started = false;
    QString error;
};

// The main window, shown, attached to an agent started for it; no window where the agent did not start.
struct ShownWindow {
    ShownWindow()
    {
        if (!agent.started)
            return;
        window = std::make_unique<MainWindow>();
        window->show();
    }
    TestAgent agent;
    std::unique_ptr<MainWindow> window;
};

// Waits until the window's run list shows the run in the final state the store has, its latest job ended, while
// the agent has no restart in flight or due on the cluster (a job that stopped to be requeued shows "failed"
// until the next attempt is recorded, and the window hears of it a moment after the store); returns that state.
inline QString waitForRunEnd(MainWindow &window, const QString &runId, int timeoutMs = 180000)
{
    window.agent()->setPollInterval(500);
    RunStore *store = window.agent()->store();
    QString state;
    const bool ended = QTest::qWaitFor(
        [&] {
            const RunRecord *run = window.runModel()->run(runId);
            state = run ? run->state : QString();
            const auto stored = store->run(runId);
            const auto jobs = store->jobs(runId);
            const bool final =
                (state == u"completed" || state == u"failed" || state == u"cancelled" || state == u"timeout") &&
                stored.ok() && stored.value && stored.value->state == state;
            const bool lastJobEnded = !jobs.value.isEmpty() && jobs.value.constLast().hasEnded();
            return final && lastJobEnded && !window.agent()->restartsPending(kSandboxHost);
        },
        timeoutMs);
    if (!ended)
        state += QStringLiteral(" (restarts pending %1, %2)")
                     .arg(window.agent()->restartsPending(kSandboxHost))
                     .arg(connectionStateName(window.agent()->state(kSandboxHost)));
    return ended ? state : QString(QStringLiteral("still ") + state);
}

} // namespace torchdeck::testing
