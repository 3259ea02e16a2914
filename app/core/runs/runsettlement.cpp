#include "core/runs/runsettlement.h"

#include "core/coretr.h"
#include "core/jobs/runlayout.h"
#include "core/runs/restartdecision.h"
#include "core/scheduler/jobstate.h"

namespace torchdeck {

qint64 specifiedEpochs(const RunRecord &run)
{
    const JobSpec::FromJson spec = run.spec();
    return spec.ok() ? specifiedEpochs(spec.spec) : -1;
}

RunSettlement settleRun(const RunRecord &run, const QList<JobRecord> &jobs, const RunProgress &progress,
                        const RunInfo &info)
{
    // Not simply the newest job: attempts submitted up front wait behind the one that runs.
    const JobRecord &latest = jobs.at(speakingJob(jobs));
    RunSettlement settled;
    settled.ended = latest.hasEnded();
    const bool trainerFailed = info.stopped && info.exitCode != 0;
    settled.state = settled.ended && trainerFailed && latest.state == jobStateName(JobState::Completed)
                        ? jobStateName(JobState::Failed)
                        : latest.state;
    // The spec's --epochs, else the series' total as it says it now, else the one the record kept.
    qint64 total = specifiedEpochs(run);
    if (total < 0 && progress.epochsTotal == kNoCount)
        total = run.epochsTotal;
    const RunProgress counted = againstEpochsTotal(progress, total);
    settled.epochsDone = counted.epochsDone;
    settled.epochsTotal = counted.epochsTotal;
    settled.lastLoss = counted.lastLoss;
    settled.etaSeconds = settled.ended ? kNoValue : counted.etaSeconds;
    return settled;
}

QString settledMessage(const QString &message, const RunInfo &info)
{
    QString settled = info.stopped && info.stopReason == u"error" ? info.stopMessage : message;
    if (info.tornSkipped > 0) {
        const QString warning = core::Tr::tr("warning: resumed from %1; %2 newer checkpoint(s) were torn or corrupt")
                                    .arg(info.tornResumedFrom.section(u'/', -1))
                                    .arg(info.tornSkipped);
        if (!settled.contains(warning))
            settled = settled.isEmpty() ? warning : settled + QStringLiteral("; ") + warning;
    }
    return settled;
}

} // namespace torchdeck
