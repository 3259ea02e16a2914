// A plain script for the local "scheduler": no directives; the body runs the command directly (or under
// mpirun), writes its own logs, and forwards the checkpoint signal the dashboard sends to it.
#include "core/jobs/jobscript.h"
#include "core/jobs/scriptbody.h"

namespace torchdeck {

ScriptResult renderLocalScript(const JobSpec &spec, const ClusterCaps &clusterCaps)
{
    ClusterCaps caps = clusterCaps;
    caps.scheduler = SchedulerKind::Local;
    ScriptResult result;
    result.errors = validateJobSpec(spec, caps);
    if (!result.ok())
        return result;
    result.script = scriptPreamble(spec) + u'\n' + scriptBody(spec, caps);
    return result;
}

} // namespace torchdeck
