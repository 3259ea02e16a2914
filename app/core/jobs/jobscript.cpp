#include "core/jobs/jobscript.h"

namespace torchdeck {

ScriptResult renderJobScript(const JobSpec &spec, const ClusterCaps &caps)
{
    switch (caps.scheduler) {
    case SchedulerKind::Slurm:
        return renderSlurmScript(spec, caps);
    case SchedulerKind::Pbs:
        return renderPbsScript(spec, caps);
    case SchedulerKind::Local:
        return renderLocalScript(spec, caps);
    }
    return {};
}

} // namespace torchdeck
