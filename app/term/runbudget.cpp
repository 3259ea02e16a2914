#include "term/runbudget.h"

#include "core/jobs/runlayout.h"
#include "core/store/runstore.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace torchdeck::term {

namespace {
// What makes two trainer runs take the same time per epoch.
QStringList pace(const JobSpec &spec)
{
    QStringList key{QString::number(spec.totalTasks()), QString::number(spec.gpusPerNode)};
    for (const char16_t *flag : {u"--model", u"--data", u"--batch-size", u"--limit", u"--amp", u"--device"})
        key.append(trainerOption(spec.trainerArgs, QString::fromUtf16(flag)));
    return key;
}
} // namespace

WallTimeBudget budgetFromSeries(const JobSpec &spec, const RunSeries &series)
{
    const RunProgress progress = series.progress();
    const qint64 steps = series.info().stepsPerEpoch;
    double saveSeconds = 0;
    int saves = 0;
    for (const RunCheckpoint &checkpoint : series.checkpoints()) {
        if (std::isfinite(checkpoint.seconds)) {
            saveSeconds += checkpoint.seconds;
            ++saves;
        }
    }
    const double perEpoch = progress.secondsPerEpoch;
    return wallTimeBudget(spec.wallTimeSeconds, spec.checkpointSignalEnabled ? spec.signalLeadSeconds : 0, perEpoch,
                          steps > 0 && std::isfinite(perEpoch) ? perEpoch / double(steps) : 0.0,
                          saves > 0 ? saveSeconds / saves : 0.0);
}

WallTimeBudget budgetFromEarlierRun(RunStore &store, const QString &cluster, const JobSpec &spec)
{
    if (spec.commandKind != CommandKind::Trainer || spec.wallTimeSeconds <= 0)
        return {};
    const auto runs = store.runs(cluster);
    for (const RunRecord &run : runs.value) { // newest first
        const JobSpec::FromJson earlier = JobSpec::fromJson(QJsonDocument::fromJson(run.specJson.toUtf8()).object());
        if (!earlier.ok() || pace(earlier.spec) != pace(spec))
            continue;
        const auto series = store.runSeries(run.id);
        if (!series.ok())
            continue;
        const WallTimeBudget budget = budgetFromSeries(spec, series.value);
        if (budget.known)
            return budget;
    }
    return {};
}

} // namespace torchdeck::term
