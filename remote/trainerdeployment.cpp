#include "remote/trainerdeployment.h"

#include "core/jobs/runlayout.h"
#include "core/remotepath.h"
#include "core/runs/pbsbuildjob.h"
#include "core/shellquote.h"
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
}

void TrainerDeployment::start()
{
    emit started();
    if (m_bundle.files.isEmpty())
        return fail(tr("this torchdeck was built without the trainer's sources"));
    m_result.hash = m_bundle.hash;
    m_steps = {[this] { resolveWorkDirectory(); }, [this] { checkExistingBuild(); }};
    next();
}

void TrainerDeployment::stop()
{
    m_stopped = true;
}

void TrainerDeployment::next()
{
    if (m_stopped)
        return fail(tr("deployment stopped"));
    if (m_steps.isEmpty())
        return emit finished(m_result);
    m_steps.takeFirst()();
}

void TrainerDeployment::fail(const QString &error)
{
    m_steps.clear();
    emit failed(error);
}

void TrainerDeployment::runCommand(const QString &what, const QString &command,
                                   const std::function<void(const QByteArray &)> &then, bool streamOutput)
{
    if (!m_connection)
        return fail(tr("%1: the connection is gone").arg(what));
    // A build (streamed) may take long on a busy login node or in a queued job: it keeps its output flowing.
    constexpr int buildDeadlineMs = 3 * 60 * 60 * 1000;
    RemoteCommand *run = m_connection->run(command, streamOutput ? buildDeadlineMs : kDefaultCommandDeadlineMs);
    if (streamOutput)
        connect(run, &RemoteCommand::output, this,
                [this](const QByteArray &data, bool) { emit output(QString::fromUtf8(data)); });
    connect(run, &RemoteCommand::failed, this, [this, what](const QString &error) { fail(what + u": " + error); });
    connect(run, &RemoteCommand::finished, this, [this, what, then](const ExecResult &result) {
        if (result.exitCode != 0) {
            const QByteArray tail = (result.err.isEmpty() ? result.out : result.err).right(4000).trimmed();
            return fail(tr("%1 failed (exit code %2)%3%4")
                            .arg(what)
                            .arg(result.exitCode)
                            .arg(tail.isEmpty() ? QString() : QStringLiteral(":\n"), QString::fromUtf8(tail)));
        }
        then(result.out);
    });
}

void TrainerDeployment::resolveWorkDirectory()
{
    emit progress(tr("Finding the work directory"), 0, 0);
    const QString dir = m_settings.workDirectory;
    const QString expr = remotePathExpression(dir);
    runCommand(tr("creating the work directory %1").arg(dir),
               QStringLiteral("mkdir -p %1/trainer && cd %1 && pwd -P").arg(expr), [this](const QByteArray &out) {
                   const QString work = QString::fromUtf8(out.trimmed());
                   m_trainerDir = work + QStringLiteral("/trainer/") + m_bundle.hash;
                   m_result.binary = deployedTrainerBinary(work, m_bundle.hash); // what a preview names
                   next();
               });
}

void TrainerDeployment::checkExistingBuild()
{
    emit progress(tr("Looking for an earlier build of trainer %1").arg(m_bundle.hash), 0, 0);
    const QString dir = shellQuote(m_trainerDir);
    runCommand(tr("checking %1").arg(m_trainerDir),
               QStringLiteral("if [ -x %1/build/torchdeck-train ] && [ -f %1/build/%2 ]; then echo built; "
                              "elif [ -d %1 ]; then echo sources; else echo none; fi")
                   .arg(dir, readyMarker),
               [this](const QByteArray &out) {
                   const QByteArray state = out.trimmed();
                   if (state == "built") {
                       m_result.reused = true;
                       emit output(tr("Reusing the build in %1\n").arg(m_trainerDir));
                   } else if (state == "sources") {
                       m_steps = {[this] { build(); }, [this] { verify(); }};
                   } else {
                       m_steps = {[this] { uploadSources(); }, [this] { publishSources(); }, [this] { build(); },
                                  [this] { verify(); }};
                   }
                   next();
               });
}

void TrainerDeployment::uploadSources()
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
    runCommand(tr("creating %1").arg(m_stagingDir), QStringLiteral("mkdir -p ") + quoted.join(u' '),
               [this](const QByteArray &) { uploadFile(0); });
}

void TrainerDeployment::uploadFile(int index)
{
    if (m_stopped)
        return fail(tr("deployment stopped"));
    if (index == m_bundle.files.size())
        return next();
    if (!m_connection)
        return fail(tr("uploading the trainer: the connection is gone"));
    const TrainerBundle::File &file = m_bundle.files.at(index);
    RemoteUpload *upload = m_connection->uploadData(file.content, m_stagingDir + u'/' + file.relativePath, 0644);
    connect(upload, &RemoteUpload::failed, this,
            [this](const QString &error) { fail(tr("uploading the trainer: %1").arg(error)); });
    connect(upload, &RemoteUpload::finished, this, [this, index](qint64 bytes) {
        m_uploaded += bytes;
        emit progress(tr("Uploading the trainer's sources"), m_uploaded, m_bundle.totalBytes());
        uploadFile(index + 1);
    });
}

void TrainerDeployment::publishSources()
{
    // A rename makes the directory appear complete or not at all; if another torchdeck won the race, keep
    // theirs.
    const QString staging = shellQuote(m_stagingDir);
    runCommand(
        tr("publishing %1").arg(m_trainerDir),
        QStringLiteral("mv -T %1 %2 2>/dev/null || { [ -d %2 ] && rm -rf %1; }").arg(staging, shellQuote(m_trainerDir)),
        [this](const QByteArray &) { next(); });
}

void TrainerDeployment::build()
{
    const bool inPbsJob = !m_settings.buildJobScript.isEmpty();
    emit progress(inPbsJob ? tr("Building the trainer in a job (qsub)")
                  : m_settings.buildLauncher.isEmpty()
                      ? tr("Building the trainer on the cluster")
                      : tr("Building the trainer in a job (%1)").arg(m_settings.buildLauncher.first()),
                  0, 0);
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
        tr("building the trainer"), QStringLiteral("exec 2>&1; cd %1 && flock %1/.build.lock %2").arg(dir, run),
        [this](const QByteArray &) { next(); }, true);
}

void TrainerDeployment::verify()
{
    runCommand(tr("running the built trainer"), shellQuote(m_result.binary) + QStringLiteral(" --version"),
               [this](const QByteArray &out) {
                   emit output(QString::fromUtf8(out));
                   next();
               });
}

} // namespace torchdeck::remote
