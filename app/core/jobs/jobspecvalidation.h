#pragma once

#include "core/jobs/clustercaps.h"
#include "core/jobs/jobspec.h"

#include <QList>
#include <QString>

namespace torchdeck {

// One problem of a spec: `field` is the JSON key (e.g. "nodes", "environment[2].name") so a form can mark
// the widget; `message` is a sentence for the user.
struct JobSpecError {
    QString field;
    QString message;
};
bool operator==(const JobSpecError &a, const JobSpecError &b);

// Everything that would make the rendered script wrong, unsafe or rejected by the scheduler, for the
// scheduler in `caps`. Empty: the spec renders. Checks against caps only what caps know.
QList<JobSpecError> validateJobSpec(const JobSpec &spec, const ClusterCaps &caps);

// "field: message" lines, for a failed(QString) signal or the terminal.
QString formatJobSpecErrors(const QList<JobSpecError> &errors);
// The sentences alone, on one line: for a note that shows no field or option (a cluster a placement skipped, the
// estimate of a move), where a JSON key would mean nothing to the user.
QString describeJobSpecErrors(const QList<JobSpecError> &errors);

// The checkpoint signals: USR1, USR2 (passed on by srun and mpirun) and TERM (the local method only);
// torchdeck-train stops on each by default.
QStringList supportedCheckpointSignals();

} // namespace torchdeck
