#include "term/submitcommand.h"

#include "core/jobs/runlayout.h"
#include "core/scheduler/jobstate.h"
#include "remote/resumerequest.h"
#include "remote/runbudget.h"
#include "remote/runlauncher.h"
#include "term/joboptions.h"
#include "term/progressprinter.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryFile>
#include <QUuid>

namespace torchdeck::term {

namespace {
// Deployment includes a first build of the trainer on the cluster: minutes on a small login node.
constexpr int launchTimeoutMs = 60 * 60 * 1000;

// Runs the launcher to its end, showing progress on stderr; returns the result or nothing (error shown).
std::optional<remote::LaunchResult> launch(TermContext &context, remote::Connection &connection,
                                           const remote::LaunchRequest &request, bool previewOnly)
{
    remote::RunLauncher launcher(&connection, &context.store());
    ProgressPrinter progress(context.err());
    std::optional<remote::LaunchResult> result;
    QString problem;
    QString script;
    QObject::connect(&launcher, &remote::RunLauncher::progress, &launcher,
                     [&](const QString &step, qint64 done, qint64 total) { progress.step(step, done, total); });
    QObject::connect(&launcher, &remote::RunLauncher::output, &launcher,
                     [&](const QString &text) { progress.output(text); });
    QObject::connect(&launcher, &remote::RunLauncher::rendered, &launcher, [&](const QString &text) { script = text; });
    const bool finished = waitUntil(
        [&](const std::function<void()> &done) {
            QObject::connect(&launcher, &remote::RunLauncher::failed, &launcher, [&, done](const QString &error) {
                problem = error;
                done();
            });
            QObject::connect(&launcher, &remote::RunLauncher::submitted, &launcher,
                             [&, done](const remote::LaunchResult &launched) {
                                 result = launched;
                                 done();
                             });
            if (previewOnly)
                QObject::connect(&launcher, &remote::RunLauncher::rendered, &launcher, [done] { done(); });
            if (previewOnly)
                launcher.preview(request);
            else
                launcher.start(request);
        },
        launchTimeoutMs);
    progress.finish();
    if (!finished)
        problem = QStringLiteral("timed out");
    if (!problem.isEmpty()) {
        context.error(problem);
        return std::nullopt;
    }
    if (previewOnly)
        return remote::LaunchResult{request.runId, request.attempt, {}, {}, script};
    return result;
}

void printLaunched(TermContext &context, const remote::LaunchResult &result, const QString &cluster, bool json)
{
    if (json) {
        const QJsonObject object{{QStringLiteral("run"), result.runId},
                                 {QStringLiteral("attempt"), result.attempt},
                                 {QStringLiteral("job"), result.jobId},
                                 {QStringLiteral("cluster"), cluster},
                                 {QStringLiteral("directory"), result.runDirectory}};
        context.out() << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return;
    }
    context.out() << "run " << shortRunId(result.runId) << " (" << result.runId << "), attempt " << result.attempt
                  << ": job " << result.jobId << " on " << cluster << '\n'
                  << "  follow it: torchdeck watch " << shortRunId(result.runId) << "   or: torchdeck logs "
                  << shortRunId(result.runId) << " -f\n"
                  << Qt::flush;
}

// Opens the rendered script in $VISUAL or $EDITOR (vi without either); the saved text is what gets submitted.
bool editScript(TermContext &context, const QString &script, QString *edited)
{
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/torchdeck-job-XXXXXX.sh"));
    if (!file.open() || file.write(script.toUtf8()) < 0 || !file.flush()) {
        context.error(QStringLiteral("cannot write a temporary file for the editor: ") + file.errorString());
        return false;
    }
    QString editor = qEnvironmentVariable("VISUAL", qEnvironmentVariable("EDITOR"));
    if (editor.isEmpty())
        editor = QStringLiteral("vi");
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedChannels);
    process.setInputChannelMode(QProcess::ForwardedInputChannel);
    // Through the shell, as git does: EDITOR may hold options ("code --wait").
    process.start(QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"), editor + QStringLiteral(" \"$1\""), QStringLiteral("sh"), file.fileName()});
    if (!process.waitForFinished(-1) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        context.error(QStringLiteral("the editor (%1) failed; nothing was submitted").arg(editor));
        return false;
    }
    QFile saved(file.fileName());
    if (!saved.open(QIODevice::ReadOnly)) {
        context.error(QStringLiteral("cannot read the edited script: ") + saved.errorString());
        return false;
    }
    *edited = QString::fromUtf8(saved.readAll());
    if (edited->trimmed().isEmpty()) {
        context.error(QStringLiteral("the script is empty; nothing was submitted"));
        return false;
    }
    return true;
}

int submitOrPreview(const QStringList &args, QTextStream &out, QTextStream &err, bool previewOnly)
{
    TermContext context(previewOnly ? QStringLiteral("script") : QStringLiteral("submit"), out, err);
    const JobOptions options =
        parseJobOptions(args, {QStringLiteral("--json"), QStringLiteral("--edit")}, {QStringLiteral("--chain")});
    if (!options.error.isEmpty()) {
        context.error(options.error);
        return UsageError;
    }
    bool chainOk = true;
    const int chain = options.values.value(QStringLiteral("--chain"), QStringLiteral("1")).toInt(&chainOk);
    if (!chainOk || chain < 1 || chain > 1 + options.spec.maxRestarts ||
        (chain > 1 && options.spec.commandKind != CommandKind::Trainer)) {
        context.error(QStringLiteral("--chain wants the number of jobs, 1 to 1 + --max-restarts, for the trainer"));
        return UsageError;
    }
    if (options.cluster.isEmpty()) {
        context.error(QStringLiteral("which cluster? (torchdeck clusters lists them)"));
        return UsageError;
    }
    if (!context.open())
        return Failure;
    remote::LaunchRequest request;
    request.profile = context.profiles().profile(options.cluster);
    request.spec = options.spec;
    request.resume = options.spec.commandKind == CommandKind::Trainer &&
                             trainerOption(options.spec.trainerArgs, QStringLiteral("--resume")).isEmpty()
                         ? QStringLiteral("auto") // so a requeued attempt continues from its checkpoint
                         : QString();
    const WallTimeBudget budget = remote::budgetFromEarlierRun(context.store(), options.cluster, request.spec);
    if (budget.known && !previewOnly)
        context.err() << "torchdeck submit: " << (budget.reachesCheckpoint ? "" : "warning: ") << budget.summary
                      << " (measured on an earlier run)\n"
                      << Qt::flush;
    const auto connection = context.connect(options.cluster);
    if (!connection)
        return Failure;
    if (!previewOnly && options.flags.contains(QStringLiteral("--edit"))) {
        // The script shown is the one submitted: same run id, so the same directories.
        request.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        const auto preview = launch(context, *connection, request, true);
        if (!preview || !editScript(context, preview->script, &request.script))
            return Failure;
    }
    const auto result = launch(context, *connection, request, previewOnly);
    if (!result)
        return Failure;
    if (previewOnly) {
        out << result->script << Qt::flush;
        return Ok;
    }
    printLaunched(context, *result, options.cluster, options.flags.contains(QStringLiteral("--json")));
    // The rest of the chain now: each attempt starts only if the one before it fails (exit 75 included).
    QString before = result->jobId;
    for (int attempt = 1; attempt < chain; ++attempt) {
        remote::LaunchRequest next = request;
        next.runId = result->runId;
        next.attempt = attempt;
        next.resume = QStringLiteral("auto");
        next.script.clear();
        next.after = {SubmitDependency::AfterNotOk, {before}};
        const auto queued = launch(context, *connection, next, false);
        if (!queued)
            return Failure;
        context.err() << "torchdeck submit: attempt " << attempt << " queued as job " << queued->jobId << ", after job "
                      << before << " if it fails\n"
                      << Qt::flush;
        before = queued->jobId;
    }
    return Ok;
}
} // namespace

std::optional<remote::LaunchRequest> resumeRequest(TermContext &context, const RunRecord &run, const QString &from,
                                                   const QString &epochs, QString *error)
{
    return remote::resumeRequest(context.store(), context.profiles().profile(run.cluster), run, from, epochs, error);
}

int runScriptCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    return submitOrPreview(args, out, err, true);
}

int runSubmitCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    return submitOrPreview(args, out, err, false);
}

int runResumeCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    TermContext context(QStringLiteral("resume"), out, err);
    QString runText;
    QString from = QStringLiteral("auto");
    QString epochs;
    bool json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if ((arg == u"--from" || arg == u"--epochs") && i + 1 < args.size()) {
            (arg == u"--from" ? from : epochs) = args.at(++i);
        } else if (arg == u"--json") {
            json = true;
        } else if (!arg.startsWith(u'-') && runText.isEmpty()) {
            runText = arg;
        } else {
            context.error(QStringLiteral("unexpected argument '%1' (usage: torchdeck resume RUN [--from CHECKPOINT] "
                                         "[--epochs N] [--json])")
                              .arg(arg));
            return UsageError;
        }
    }
    if (!epochs.isEmpty() && epochs.toInt() <= 0) {
        context.error(QStringLiteral("--epochs wants a positive whole number, got '%1'").arg(epochs));
        return UsageError;
    }
    const auto run = context.openRun(runText);
    if (!run)
        return Failure;
    QString problem;
    const auto request = resumeRequest(context, *run, from, epochs, &problem);
    if (!request) {
        context.error(problem);
        return Failure;
    }
    const auto connection = context.connect(run->cluster);
    if (!connection)
        return Failure;
    const auto result = launch(context, *connection, *request, false);
    if (!result)
        return Failure;
    printLaunched(context, *result, run->cluster, json);
    return Ok;
}

} // namespace torchdeck::term
