#include "remote/trainerdeployment.h"

#include "core/jobs/runlayout.h"
#include "core/remotepath.h"
#include "core/runs/pbsbuildjob.h"
#include "core/shellquote.h"
#include "remote/commandstep.h"
#include "remote/connection.h"

#include <QFileInfo>
#include <QRandomGenerator>
#include <QSet>

namespace torchdeck::remote {

namespace {
const QString readyMarker = QStringLiteral("torchdeck-ready");
}

TrainerDeployment::TrainerDeployment(Connection *connection, TrainerBundle bundle, DeploySettings settings,
                                     QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_bundle(std::move(bundle))
    , m_settings(std::move(settings))
{
    qRegisterMetaType<DeployResult>();
    m_steps.add({tr("Finding the work directory"), {}, [this](const StepHandle &step) { resolveWorkDirectory(step); }});
    // What follows depends on what is there: nothing, the sources, or a finished build.
    m_steps.add({tr("Looking for an earlier build of trainer %1").arg(m_bundle.hash),
                 {},
                 [this](const StepHandle &step) { checkExistingBuild(step); }});
    connect(&m_steps, &StepSequence::progress, this, &TrainerDeployment::progress);
    connect(&m_steps, &StepSequence::failed, this, &TrainerDeployment::failed);
    connect(&m_steps, &StepSequence::finished, this, [this] { emit finished(m_result); });
}

void TrainerDeployment::start()
{
    emit started();
    if (m_bundle.files.isEmpty())
        return emit failed(tr("this torchdeck was built without the trainer's sources"));
    m_result = {};
    m_result.hash = m_bundle.hash;
    m_uploaded = 0;
    m_steps.start();
}

void TrainerDeployment::stop()
{
    if (!m_steps.isRunning())
        return;
    m_steps.stop();
    emit failed(tr("deployment stopped"));
}

void TrainerDeployment::runCommand(const StepHandle &step, const QString &what, const QString &command,
                                   const std::function<void(const QByteArray &)> &then, bool streamOutput)
{
    CommandStepOptions options;
    if (streamOutput) {
        // A build may take long on a busy login node or in a queued job: it keeps its output flowing.
        options.deadlineMs = 3 * 60 * 60 * 1000;
        options.output = [this](const QByteArray &data) { emit output(QString::fromUtf8(data)); };
    }
    runCommandStep(m_connection, step, what, command, then, options);
}

void TrainerDeployment::resolveWorkDirectory(const StepHandle &step)
{
    const QString dir = m_settings.workDirectory;
    const QString expr = remotePathExpression(dir);
    runCommand(step, tr("creating the work directory %1").arg(dir),
               QStringLiteral("mkdir -p %1/trainer && cd %1 && pwd -P").arg(expr), [this, step](const QByteArray &out) {
                   const QString work = QString::fromUtf8(out.trimmed());
                   m_trainerDir = WorkLayout{work}.trainerDirectory(m_bundle.hash);
                   m_result.binary = WorkLayout{work}.trainerBinary(m_bundle.hash); // what a preview names
                   step.done();
               });
}

void TrainerDeployment::checkExistingBuild(const StepHandle &step)
{
    const QString dir = shellQuote(m_trainerDir);
    runCommand(step, tr("checking %1").arg(m_trainerDir),
               QStringLiteral("if [ -x %1/build/torchdeck-train ] && [ -f %1/build/%2 ]; then echo built; "
                              "elif [ -d %1 ]; then echo sources; else echo none; fi")
                   .arg(dir, readyMarker),
               [this, step](const QByteArray &out) {
                   const QByteArray state = out.trimmed();
                   if (state == "built") {
                       m_result.reused = true;
                       emit output(tr("Reusing the build in %1\n").arg(m_trainerDir));
                       return step.doneAll();
                   }
                   if (state == "sources") {
                       m_steps.then({buildStep(), verifyStep()});
                   } else {
                       m_steps.then({{{}, {}, [this](const StepHandle &next) { uploadSources(next); }},
                                     {{}, {}, [this](const StepHandle &next) { publishSources(next); }},
                                     buildStep(),
                                     verifyStep()});
                   }
                   step.done();
               });
}

void TrainerDeployment::uploadSources(const StepHandle &step)
{
    m_stagingDir = m_trainerDir +
                   QStringLiteral(".upload-%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    QSet<QString> dirs{m_stagingDir};
    for (const TrainerBundle::File &file : std::as_const(m_bundle.files))
        dirs.insert(QFileInfo(m_stagingDir + u'/' + file.relativePath).path());
    QStringList quoted;
    for (const QString &dir : std::as_const(dirs))
        quoted.append(shellQuote(dir));
    quoted.sort();
    runCommand(step, tr("creating %1").arg(m_stagingDir), QStringLiteral("mkdir -p ") + quoted.join(u' '),
               [this, step](const QByteArray &) { uploadFile(step, 0); });
}

void TrainerDeployment::uploadFile(const StepHandle &step, int index)
{
    if (index == m_bundle.files.size())
        return step.done();
    if (!m_connection)
        return step.fail(tr("uploading the trainer: the connection is gone"));
    const TrainerBundle::File &file = m_bundle.files.at(index);
    RemoteUpload *upload = m_connection->uploadData(file.content, m_stagingDir + u'/' + file.relativePath, 0644);
    connect(upload, &RemoteUpload::failed, step.context(),
            [step](const QString &error) { step.fail(tr("uploading the trainer: %1").arg(error)); });
    connect(upload, &RemoteUpload::finished, step.context(), [this, step, index](qint64 bytes) {
        m_uploaded += bytes;
        emit progress(tr("Uploading the trainer's sources"), m_uploaded, m_bundle.totalBytes());
        uploadFile(step, index + 1); // one file after another: the SFTP channel is one
    });
}

void TrainerDeployment::publishSources(const StepHandle &step)
{
    // A rename makes the directory appear complete or not at all; if another torchdeck won the race, keep
    // theirs.
    const QString staging = shellQuote(m_stagingDir);
    runCommand(
        step, tr("publishing %1").arg(m_trainerDir),
        QStringLiteral("mv -T %1 %2 2>/dev/null || { [ -d %2 ] && rm -rf %1; }").arg(staging, shellQuote(m_trainerDir)),
        [step](const QByteArray &) { step.done(); });
}

Step TrainerDeployment::buildStep()
{
    const QString title = !m_settings.buildJobScript.isEmpty() ? tr("Building the trainer in a job (qsub)")
                          : m_settings.buildLauncher.isEmpty()
                              ? tr("Building the trainer on the cluster")
                              : tr("Building the trainer in a job (%1)").arg(m_settings.buildLauncher.first());
    return {title, {}, [this](const StepHandle &step) { build(step); }};
}

Step TrainerDeployment::verifyStep()
{
    return {{}, {}, [this](const StepHandle &step) { verify(step); }};
}

void TrainerDeployment::build(const StepHandle &step)
{
    const bool inPbsJob = !m_settings.buildJobScript.isEmpty();
    const QString dir = shellQuote(m_trainerDir);
    QStringList lines = m_settings.moduleLines;
    QString configure = QStringLiteral("cmake -S %1 -B %1/build -DCMAKE_BUILD_TYPE=Release").arg(dir);
    if (!m_settings.libtorchPrefix.isEmpty())
        configure += QStringLiteral(" -DCMAKE_PREFIX_PATH=") + remotePathExpression(m_settings.libtorchPrefix);
    const QString jobs =
        m_settings.buildJobs > 0 ? QString::number(m_settings.buildJobs) : QStringLiteral("\"$(nproc)\"");
    lines << configure << QStringLiteral("cmake --build %1/build --target torchdeck-train -j %2").arg(dir, jobs)
          << QStringLiteral("touch %1/build/%2").arg(dir, readyMarker);
    // flock: two deployments of the same hash build once, the second waits and then finds it built.
    const QString script = QStringLiteral("set -e\n") + lines.join(u'\n');
    const QString launcher =
        m_settings.buildLauncher.isEmpty() ? QString() : shellJoin(m_settings.buildLauncher) + u' ';
    const QString run = inPbsJob ? pbsBuildAndWaitCommand(script, m_settings.buildJobScript)
                                 : launcher + QStringLiteral("bash -c ") + shellQuote(script);
    runCommand(
        step, tr("building the trainer"), QStringLiteral("exec 2>&1; cd %1 && flock %1/.build.lock %2").arg(dir, run),
        [step](const QByteArray &) { step.done(); }, true);
}

void TrainerDeployment::verify(const StepHandle &step)
{
    runCommand(step, tr("running the built trainer"), shellQuote(m_result.binary) + QStringLiteral(" --version"),
               [this, step](const QByteArray &out) {
                   emit output(QString::fromUtf8(out));
                   step.done();
               });
}

} // namespace torchdeck::remote
