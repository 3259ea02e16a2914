#include "core/runs/sweepplan.h"

#include "core/coretr.h"
#include "core/jobs/jobspecvalidation.h"

#include <QUuid>

namespace torchdeck {

QList<SweepPointRequest> SweepPlan::requests() const
{
    QList<SweepPointRequest> requests;
    for (const SweepPlanPoint &point : points)
        requests.append({sweepPointJson(point.point), point.request});
    return requests;
}

SweepPlan planSweep(const SweepPlanRequest &request,
                    const std::function<SubmissionScript(const LaunchRequest &)> &preview,
                    const std::function<QString(const QList<JobSpecError> &)> &formatErrors)
{
    SweepPlan plan;
    const std::optional<QList<SweepPoint>> grid = sweepGrid(request.axes, kMostSweepPoints, &plan.problem);
    if (!grid)
        return plan;
    QStringList refusals;
    QList<SubmissionScript> previews;
    for (const SweepPoint &point : *grid) {
        std::optional<JobSpec> spec = request.base;
        for (const auto &[name, value] : point.values) {
            spec = specWithValue(*spec, name, value, &plan.problem);
            if (!spec) {
                plan.points.clear();
                return plan;
            }
        }
        spec->name = sweepPointName(request.base.name.isEmpty() ? QStringLiteral("sweep") : request.base.name, point);
        LaunchRequest run = newRunRequest(request.profile, *spec);
        run.runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        const SubmissionScript rendered = preview(run);
        if (!rendered.ok()) {
            ++plan.refused;
            for (const QString &line : formatErrors(rendered.errors).split(u'\n'))
                refusals.append(QStringLiteral("  %1: %2").arg(point.label(), line));
        }
        previews.append(rendered);
        plan.nodeSeconds += double(spec->nodes) * double(spec->wallTimeSeconds);
        plan.points.append({point, run, rendered});
    }
    if (plan.refused > 0) {
        plan.problem = core::Tr::tr("%1 of %2 points cannot run on %3, so none is sent:\n%4")
                           .arg(plan.refused)
                           .arg(plan.points.size())
                           .arg(request.profile.name, refusals.join(u'\n'));
        return plan;
    }
    plan.notArray = request.separateJobs ? core::Tr::tr("a job per point was asked for")
                                         : arrayRefusal(request.profile.caps(), previews, request.maxRunning);
    if (!plan.notArray.isEmpty() && request.maxRunning > 0)
        plan.problem = core::Tr::tr("at most %1 running at a time needs one job array, and these points cannot be one: "
                                    "%2")
                           .arg(request.maxRunning)
                           .arg(plan.notArray);
    return plan;
}

} // namespace torchdeck
