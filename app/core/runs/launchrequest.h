#pragma once

#include "core/jobs/jobscript.h"
#include "core/jobs/jobspec.h"
#include "core/jobs/resumefrom.h"
#include "core/profiles/clusterprofile.h"
#include "core/scheduler/schedulercommands.h"
#include "core/store/runrecord.h"

#include <QMetaType>
#include <optional>

namespace torchdeck {

class RunStore;

// A run sent as task `task` of a job array (remote::RunLauncher::startArray): a claim of it that is taken
// over looks for the array by its name and script before it submits the run alone.
struct ArrayMembership {
    QString name;   // the array's job name
    QString script; // its script's path on the cluster
    int task = -1;  // -1: not in an array
    bool isSet() const { return task >= 0; }
};

// One submission: a new run (attempt 0) or a further attempt of a stored run (resume, requeue, chain).
struct LaunchRequest {
    ClusterProfile profile;
    JobSpec spec;      // as the user wrote it; the profile's settings and the run layout are applied on rendering
    QString runId;     // empty: a new run with a new id
    int attempt = 0;   // the attempt to submit; a resume is the next attempt of runId
    ResumeFrom resume; // the trainer's --resume for this attempt
    QString script;    // non-empty: submit this text (the user edited the rendered script)
    SubmitDependency after;
    ArrayMembership array; // set only in a claim of an array's task
    QString placement;     // a new run's: where it went among candidate clusters (RunRecord::placement)
    QString origin;        // JobRecord::origin; empty: said by the request (a new run, a chain's, a resume)
};

struct LaunchResult {
    QString runId;
    int attempt = 0;
    QString jobId;
    QString runDirectory;
    QString script;
};

// What a claim keeps to submit again if its front stops before the scheduler answered (RunStore::claimAttempt):
// everything but the profile, which the cluster's session has. The script is the one rendered for it.
QString launchRequestJson(const LaunchRequest &request, const QString &script);
std::optional<LaunchRequest> launchRequestFromJson(const ClusterProfile &profile, const QString &json);

// The scheduler's name for one attempt of a run: the job's name, the run and the attempt, so a submission
// whose reply was lost is found again (SchedulerCommands::queryNamed) instead of submitted twice.
QString attemptJobName(const QString &name, const QString &runId, int attempt);

// A new run of `spec` on the profile's cluster. The one place that decides "resume auto": the bundled
// trainer, unless the user passed --resume, resumes from the run's latest checkpoint, so a requeued or
// restarted attempt continues where the last one stopped.
LaunchRequest newRunRequest(const ClusterProfile &profile, const JobSpec &spec, const QString &script = {});

// The next attempt of an ended run, from its latest checkpoint (also when `from` is AsSpecified), from
// scratch or from one checkpoint (a path, or a file name or step as the run's checkpoints list them: looked
// up here), optionally for a new number of epochs; a custom command only from its own latest checkpoint or
// from scratch. Shared by the fronts
// and the automatic restart. Nothing, with `error` set, when it cannot resume. `moving`: the job id of the run's
// latest attempt, still waiting (held), that this attempt replaces on another cluster (the agent's --move-after).
std::optional<LaunchRequest> resumeRequest(const RunStore &store, const ClusterProfile &profile, const RunRecord &run,
                                           ResumeFrom from, const QString &epochs, QString *error,
                                           const QString &moving = {});

// What the paths of a submission start with while the work directory is not known yet (before connecting):
// a marked placeholder that still passes validation (absolute, and a character set directives can carry).
inline const QString kUnknownWorkDirectory = QStringLiteral("/@WORKDIR@");

// The script a submission of `request` sends, byte for byte: the profile's partition, account and modules
// where the spec names none, the attempt's run directory (<workDirectory>/runs/<run id>), its log, metrics
// and checkpoint paths, its resume and the trainer binary. The fronts preview exactly this.
struct SubmissionScript {
    JobSpec attemptSpec;
    QString runDirectory;
    QString script;
    QList<JobSpecError> errors;
    bool ok() const { return errors.isEmpty(); }
};
SubmissionScript renderSubmission(const LaunchRequest &request, const QString &workDirectory,
                                  const QString &trainerBinary);
// The trainer a submission runs on the cluster: the profile's prebuilt one, else where the agent's deployment puts the
// bundled trainer under the work directory.
QString trainerBinaryOn(const ClusterProfile &profile, const QString &workDirectory);

} // namespace torchdeck

Q_DECLARE_METATYPE(torchdeck::LaunchResult)
