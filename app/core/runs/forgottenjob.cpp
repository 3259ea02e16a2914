#include "core/runs/forgottenjob.h"

#include "core/coretr.h"

namespace torchdeck {

std::optional<ForgottenJobEnd> forgottenJobEnd(const JobTrace &trace, const QString &jobId)
{
    if (!trace.started() || trace.jobId != jobId)
        return std::nullopt;
    if (!trace.ended)
        return ForgottenJobEnd{JobState::Failed, -1,
                               core::Tr::tr("the scheduler no longer knows job %1; it started and never recorded its "
                                            "end (killed, or its node lost)")
                                   .arg(jobId)};
    return ForgottenJobEnd{trace.exitCode == 0 ? JobState::Completed : JobState::Failed, trace.exitCode,
                           core::Tr::tr("the scheduler no longer knows job %1; its own record says it ended with exit "
                                        "code %2")
                               .arg(jobId)
                               .arg(trace.exitCode)};
}

} // namespace torchdeck
