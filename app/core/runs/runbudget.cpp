#include "core/runs/runbudget.h"

#include "core/jobs/runlayout.h"
#include "core/store/runstore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

namespace torchdeck {

namespace {
// What makes two trainer runs take the same time per epoch.
QStringList pace(const JobSpec &spec)
{
    QStringList key{QString::number(spec.totalTasks()), QString::number(spec.gpusOnNode())};
    for (const char16_t *flag : {u"--model", u"--data", u"--batch-size", u"--limit", u"--amp", u"--device"})
        key.append(trainerOption(spec.trainerArgs, QString::fromUtf16(flag)));
    return key;
}

double meanSaveSeconds(const RunSeries &series)
{
    double total = 0;
    int saves = 0;
    for (const RunCheckpoint &checkpoint : series.checkpoints()) {
        if (std::isfinite(checkpoint.seconds)) {
            total += checkpoint.seconds;
            ++saves;
        }
    }
    return saves > 0 ? total / saves : 0.0;
}
} // namespace

WallTimeBudget budgetFromSeries(const JobSpec &spec, const RunSeries &series)
{
    const RunProgress progress = series.progress();
    const qint64 steps = series.info().stepsPerEpoch;
    const double perEpoch = progress.secondsPerEpoch;
    return wallTimeBudget(spec.wallTimeSeconds, spec.checkpointSignalEnabled ? spec.signalLeadSeconds : 0, perEpoch,
                          steps > 0 && std::isfinite(perEpoch) ? perEpoch / double(steps) : 0.0,
                          meanSaveSeconds(series));
}

CheckpointOutlook outlookFromSeries(const JobSpec &spec, const RunSeries &series, double now)
{
    const RunInfo &info = series.info();
    if (!MetricEvent::has(info.startTime) || !MetricEvent::has(info.lastStepTime) || info.lastStep < 0 ||
        info.lastStepTime < info.startTime)
        return {};
    CheckpointOutlookInput in;
    in.wallTimeSeconds = spec.wallTimeSeconds;
    in.signalLeadSeconds = spec.checkpointSignalEnabled ? spec.signalLeadSeconds : 0;
    in.jobStart = info.startTime;
    in.now = now;
    in.lastStepTime = info.lastStepTime;
    const QString every = trainerOption(spec.trainerArgs, QStringLiteral("--checkpoint-every"));
    const qint64 everySteps = every.toLongLong();
    if (everySteps > 0)
        in.stepsToCheckpoint = everySteps - info.lastStep % everySteps;
    else if (info.stepsPerEpoch > 0 && info.lastEpochStep >= 0)
        in.stepsToCheckpoint = info.stepsPerEpoch - info.lastEpochStep;
    const auto &written = series.checkpoints();
    if (in.stepsToCheckpoint == 0 && !written.isEmpty() && written.constLast().step == info.lastStep)
        in.stepsToCheckpoint = everySteps > 0 ? everySteps : info.stepsPerEpoch; // that one is written: the next
    in.nextCheckpointStep = info.lastStep + in.stepsToCheckpoint;
    // Measured epochs include validation; before the first one, the pace of this attempt's steps so far.
    const double perEpoch = series.progress().secondsPerEpoch;
    const qint64 stepsThisAttempt = info.lastStep - std::max<qint64>(info.startStep, 0);
    if (std::isfinite(perEpoch) && perEpoch > 0 && info.stepsPerEpoch > 0)
        in.secondsPerStep = perEpoch / double(info.stepsPerEpoch);
    else if (stepsThisAttempt > 0)
        in.secondsPerStep = (info.lastStepTime - info.startTime) / double(stepsThisAttempt);
    in.secondsPerCheckpoint = meanSaveSeconds(series);
    return checkpointOutlook(in);
}

WallTimeBudget budgetFromEarlierRun(RunStore &store, const QString &cluster, const JobSpec &spec)
{
    if (spec.commandKind != CommandKind::Trainer || spec.wallTimeSeconds <= 0)
        return {};
    const auto runs = store.runs(cluster);
    for (const RunRecord &run : runs.value) { // newest first
        const JobSpec::FromJson earlier = run.spec();
        if (!earlier.ok() || pace(earlier.spec) != pace(spec))
            continue;
        const auto series = store.runSeries(run.id);
        if (!series.ok())
            continue;
        WallTimeBudget budget = budgetFromSeries(spec, series.value);
        if (budget.known)
            return budget;
    }
    return {};
}

} // namespace torchdeck
