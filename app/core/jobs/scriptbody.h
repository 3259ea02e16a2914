#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"

#include <QString>

namespace torchdeck {

// The parts every job script shares, written for caps.scheduler. The spec must be valid for it.

// "#!/bin/bash" (a login shell, "-l", when modules are loaded: the site's profile defines `module`), then
// two comment lines saying what the script runs.
QString scriptPreamble(const JobSpec &spec);

// Everything after the directives: strict mode, working directory, logs (PBS, local), modules, the
// rendezvous and user environment, the launch with signal forwarding, and the in-job requeue.
QString scriptBody(const JobSpec &spec, const ClusterCaps &caps);

// The shell word for a log path pattern: %x and %% expanded now, %j to the script's job id variable.
QString logPathWord(const QString &pattern, const QString &jobName, const QString &jobIdExpression);

} // namespace torchdeck
