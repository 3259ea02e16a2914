#include "term/submitcommand.h"

#include "client/sessionoperation.h"
#include "core/jobs/restartvalidation.h"
#include "core/jobs/runlayout.h"
#include "core/metrics/logmetrics.h"
#include "core/runs/launchrequest.h"
#include "core/runs/restartmechanism.h"
#include "core/runs/runbudget.h"
#include "core/scheduler/jobstate.h"
#include "core/sshconfigparser.h"
#include "term/joboptions.h"
#include "term/submitplacement.h"
#include "term/submitsteps.h"
#include "term/termcontext.h"
#include "term/terminalfront.h"
#include "term/termtr.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryFile>
#include <QUuid>
#include <unistd.h>

namespace torchdeck::term {

namespace {
// The script a submission of `request` sends, once the agent knows the cluster's work directory.
std::optional<QString> previewScript(TermContext &context, const LaunchRequest &request)
{
    if (!waitForWorkDirectory(context, request.profile))
        return std::nullopt;
    const SubmissionScript rendered = context.agent().previewSubmission(request);
    if (!rendered.ok()) {
        context.error(jobRefusedAsOptions(rendered.errors));
        return std::nullopt;
    }
    return rendered.script;
}

void printLaunched(TermContext &context, const LaunchResult &result, const QString &cluster, const QString &placement,
                   bool json)
{
    if (json) {
        QJsonObject object{{QStringLiteral("run"), result.runId},
                           {QStringLiteral("attempt"), result.attempt},
                           {QStringLiteral("job"), result.jobId},
                           {QStringLiteral("cluster"), cluster},
                           {QStringLiteral("directory"), result.runDirectory}};
        if (!placement.isEmpty())
            object.insert(QStringLiteral("placement"), QJsonDocument::fromJson(placement.toUtf8()).object());
        context.out() << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n' << Qt::flush;
        return;
    }
    context.out()
        << Tr::tr("run %1 (%2), attempt %3: job %4 on %5\n")
               .arg(shortRunId(result.runId), result.runId)
               .arg(result.attempt)
               .arg(result.jobId, cluster)
        << Tr::tr("  follow it: torchdeck watch %1   or: torchdeck logs %1 -f\n").arg(shortRunId(result.runId))
        << Qt::flush;
}

// Opens the rendered script in $VISUAL or $EDITOR (vi without either); the saved text is what gets submitted.
bool editScript(TermContext &context, const QString &script, QString *edited)
{
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/torchdeck-job-XXXXXX.sh"));
    if (!file.open() || file.write(script.toUtf8()) < 0 || !file.flush()) {
        context.error(Tr::tr("cannot write a temporary file for the editor: %1").arg(file.errorString()));
        return false;
    }
    QString editor = qEnvironmentVariable("VISUAL", qEnvironmentVariable("EDITOR"));
    if (editor.isEmpty() && (::isatty(STDIN_FILENO) == 0 || ::isatty(STDOUT_FILENO) == 0)) {
        context.error(Tr::tr("--edit needs $VISUAL or $EDITOR, or a terminal to start vi on; nothing was submitted"));
        return false;
    }
    if (editor.isEmpty())
        editor = QStringLiteral("vi");
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedChannels);
    process.setInputChannelMode(QProcess::ForwardedInputChannel);
    // Through the shell, as git does: EDITOR may hold options ("code --wait").
    process.start(QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"), editor + QStringLiteral(" \"$1\""), QStringLiteral("sh"), file.fileName()});
    if (!process.waitForFinished(-1) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        context.error(Tr::tr("the editor (%1) failed; nothing was submitted").arg(editor));
        return false;
    }
    QFile saved(file.fileName());
    if (!saved.open(QIODevice::ReadOnly)) {
        context.error(Tr::tr("cannot read the edited script: %1").arg(saved.errorString()));
        return false;
    }
    *edited = QString::fromUtf8(saved.readAll());
    if (edited->trimmed().isEmpty()) {
        context.error(Tr::tr("the script is empty; nothing was submitted"));
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
    if (!chainOk || chain < 1 || chain > maxChainJobs(options.spec.maxRestarts)) {
        context.error(Tr::tr("--chain wants the number of jobs, 1 to 1 + --max-restarts"));
        return UsageError;
    }
    if (options.cluster.isEmpty()) {
        context.error(Tr::tr("which cluster? (torchdeck clusters lists them)"));
        return UsageError;
    }
    QString listError;
    const QStringList clusters = candidateClusters(options.cluster, &listError);
    if (clusters.isEmpty()) {
        context.error(listError);
        return UsageError;
    }
    if (clusters.size() > 1 && options.flags.contains(QStringLiteral("--edit"))) {
        context.error(Tr::tr("--edit wants one cluster: each cluster's script differs (torchdeck script %1 shows them)")
                          .arg(clusters.join(u',')));
        return UsageError;
    }
    if (options.spec.moveAfterSeconds > 0 && clusters.size() < 2) {
        context.error(Tr::tr("--move-after wants the clusters a restart may move to: submit %1,OTHER ...")
                          .arg(clusters.constFirst()));
        return UsageError;
    }
    if (options.spec.moveAfterSeconds > 0 && options.requeueChosen && options.spec.requeue) {
        context.error(Tr::tr("--move-after and --requeue cannot go together: a job that requeues itself waits where "
                             "it was, the agent's restart can move"));
        return UsageError;
    }
    for (const QString &note : contextPatternNotes(options.spec.logPatterns))
        context.note(note);
    if (!context.open())
        return Failure;
    const QString runId = QUuid::createUuid().toString(QUuid::WithoutBraces); // the preview names its directories
    // How the run goes on at its wall time: in-job requeue where the cluster proved it allows it, unless asked.
    const auto requestFor = [&context, &options, &runId](const QString &cluster) {
        const ClusterProfile profile = context.profiles().profile(cluster);
        JobSpec spec = options.spec;
        spec.requeue = restartMechanismOf(profile, options).inJobRequeue;
        LaunchRequest request = newRunRequest(profile, spec);
        request.runId = runId;
        return request;
    };
    QString cluster = clusters.constFirst();
    QString placement;
    if (clusters.size() > 1) {
        if (previewOnly)
            return previewEach(context, clusters, requestFor) ? Ok : Failure;
        const Placement placed = placeAmong(context, clusters, requestFor);
        if (placed.chosen.isEmpty()) {
            context.error(Tr::tr("none of %1 can run the job (each one's reason above)").arg(clusters.join(u',')));
            return Failure;
        }
        cluster = placed.chosen;
        placement = placementJson(placed);
        context.err() << Tr::tr("torchdeck submit: %1\n").arg(placementWhy(placed)) << Qt::flush;
    }
    if (!previewOnly)
        context.err() << Tr::tr("torchdeck submit: restarts: %1\n")
                             .arg(restartMechanismOf(context.profiles().profile(cluster), options).why)
                      << Qt::flush;
    LaunchRequest request = requestFor(cluster);
    request.placement = placement;
    const WallTimeBudget budget = budgetFromEarlierRun(context.store(), cluster, request.spec);
    if (budget.known && !previewOnly)
        context.err() << Tr::tr("torchdeck submit: %1%2 (measured on an earlier run)\n")
                             .arg(budget.reachesCheckpoint ? QString() : Tr::tr("warning: "), budget.summary)
                      << Qt::flush;
    // What the job's own check refuses is said before connecting, named by the option that set it: against the
    // cluster's shape where it is fresh, as the agent would check it (an older one the agent reads again first). A
    // name no ssh config holds is said first, by connecting.
    LaunchRequest checked = request;
    if (!checked.profile.shapeIsFresh())
        checked.profile = checked.profile.withoutShape();
    if (const SubmissionScript local = context.agent().previewSubmission(checked);
        !local.ok() && readUserSshConfig().names(cluster)) {
        context.error(jobRefusedAsOptions(local.errors));
        return Failure;
    }
    if (!context.connect(cluster))
        return Failure;
    if (previewOnly || options.flags.contains(QStringLiteral("--edit"))) {
        // The script shown is the one submitted: same run id, so the same directories.
        const auto script = previewScript(context, request);
        if (!script)
            return Failure;
        if (previewOnly) {
            out << *script << Qt::flush;
            return Ok;
        }
        if (!editScript(context, *script, &request.script))
            return Failure;
    }
    const auto result = followSubmission(context, context.agent().submit(request, chain));
    if (!result)
        return Failure;
    printLaunched(context, *result, cluster, placement, options.flags.contains(QStringLiteral("--json")));
    return Ok;
}
} // namespace

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
    ResumeFrom from = ResumeFrom::latest();
    QString epochs;
    QString on;
    bool json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == u"--on" && i + 1 < args.size()) {
            on = args.at(++i);
        } else if (arg == u"--from" && i + 1 < args.size()) {
            from = ResumeFrom::fromText(args.at(++i));
        } else if (arg == u"--epochs" && i + 1 < args.size()) {
            epochs = args.at(++i);
        } else if (arg == u"--json") {
            json = true;
        } else if (!arg.startsWith(u'-') && runText.isEmpty()) {
            runText = arg;
        } else {
            context.error(Tr::tr("unexpected argument '%1' (usage: torchdeck resume RUN [--from CHECKPOINT] "
                                 "[--epochs N] [--on CLUSTER] [--json])")
                              .arg(arg));
            return UsageError;
        }
    }
    if (!epochs.isEmpty() && epochs.toInt() <= 0) {
        context.error(Tr::tr("--epochs wants a positive whole number, got '%1'").arg(epochs));
        return UsageError;
    }
    const auto run = context.openRun(runText);
    if (!run)
        return Failure;
    const QString cluster = on.isEmpty() ? run->cluster : on;
    QString problem;
    // Refused before connecting when the run cannot resume (still running, no such checkpoint).
    if (!resumeRequest(context.store(), context.profiles().profile(cluster), *run, from, epochs, &problem)) {
        context.error(problem);
        return Failure;
    }
    const bool elsewhere = cluster != run->cluster;
    // Elsewhere, the checkpoint comes from the run's cluster: both connected, each answering its own questions.
    if ((elsewhere && !context.connect(run->cluster)) || !context.connect(cluster))
        return Failure;
    if (elsewhere)
        context.err() << Tr::tr(
                             "torchdeck resume: run %1 goes on from %2 on %3: its checkpoint is copied there first\n")
                             .arg(shortRunId(run->id), run->cluster, cluster)
                      << Qt::flush;
    SessionOperation *resumed = elsewhere ? context.agent().continueOn(cluster, run->id, from, epochs)
                                          : context.agent().resume(cluster, run->id, from, epochs);
    const auto result = followSubmission(context, resumed, ProblemNames::JobKeys); // resume has no --time and such
    if (!result)
        return Failure;
    printLaunched(context, *result, cluster, {}, json);
    return Ok;
}

} // namespace torchdeck::term
