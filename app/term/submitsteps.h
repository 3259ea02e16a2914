#pragma once

#include "core/profiles/clusterprofile.h"
#include "core/runs/launchrequest.h"
#include "core/runs/restartmechanism.h"
#include "term/joboptions.h"
#include "term/termcontext.h"

#include <optional>

namespace torchdeck {
class SessionOperation;
}

namespace torchdeck::term {

// The steps submit, resume and sweep share.

// How a refusal by the job's own check names what it is about: by the command's options (submit, sweep), or by
// the job's keys where the command has no such options (resume).
enum class ProblemNames { Options, JobKeys };

// Runs a submission in the agent to its end, showing progress on stderr (and each further job of a chain);
// returns the first job's result or nothing (error shown).
std::optional<LaunchResult> followSubmission(TermContext &context, SessionOperation *submission,
                                             ProblemNames names = ProblemNames::Options);
// The same for a submission of many runs (a job array): each run's result, in order.
std::optional<QList<LaunchResult>> followSubmissions(TermContext &context, SessionOperation *submission,
                                                     ProblemNames names = ProblemNames::Options);

// How a run of these options goes on at its wall time: in-job requeue where the cluster proved it allows it,
// unless --requeue or --no-requeue (or the job file) chose.
RestartMechanism restartMechanismOf(const ClusterProfile &profile, const JobOptions &options);

// The agent knows the cluster's work directory (the script's paths need it), or the error is shown.
bool waitForWorkDirectory(TermContext &context, const ClusterProfile &profile);

} // namespace torchdeck::term
