#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/jobspecvalidation.h"

#include <QList>
#include <QString>

namespace torchdeck {

// A rendered job script, or why there is none. The text is complete (shebang, directives, body) and is what
// the user sees and may edit before submission.
struct ScriptResult {
    QString script;
    QList<JobSpecError> errors; // non-empty: no script
    bool ok() const { return errors.isEmpty(); }
};

// Each validates the spec for its scheduler first (caps.scheduler is taken to be that scheduler), so an
// invalid spec gives errors, never a script. Every user value in the body is shell-quoted; values in
// directive lines are validated to need no quoting.
ScriptResult renderSlurmScript(const JobSpec &spec, const ClusterCaps &caps);
ScriptResult renderPbsScript(const JobSpec &spec, const ClusterCaps &caps);
ScriptResult renderLocalScript(const JobSpec &spec, const ClusterCaps &caps = {});

// The renderer for caps.scheduler.
ScriptResult renderJobScript(const JobSpec &spec, const ClusterCaps &caps);

} // namespace torchdeck
