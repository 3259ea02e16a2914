#pragma once

#include "core/jobs/jobspec.h"
#include "core/jobs/jobspecvalidation.h"

#include <QSet>

namespace torchdeck::term {

// `CLUSTER [--job FILE] [job options] [trainer options]`, as script/submit take them. A job file is the JSON
// of JobSpec::toJson (what the GUI saves as a template); options given on the command line override it.
struct JobOptions {
    QString cluster;
    JobSpec spec;
    QSet<QString> flags;            // the command's own flags that were given (from `commandFlags`)
    QHash<QString, QString> values; // the command's own valued options (from `commandOptions`)
    QString error;                  // non-empty: what is wrong, in one line
    bool requeueChosen = false;     // --requeue or --no-requeue given (else the cluster's default applies)
};

// The option that sets a job key, as a message names it ("maxRestarts" -> "--max-restarts"); the key itself where
// no option sets it.
QString optionForJobKey(const QString &key);
// A job's problems, one a line, each named by the option that sets what it is about ("--time: Partition ...").
QString formatJobErrorsAsOptions(const QList<JobSpecError> &errors);
// "the job cannot be submitted:" and those lines, as the terminal refuses a job.
QString jobRefusedAsOptions(const QList<JobSpecError> &errors);

JobOptions parseJobOptions(const QStringList &args, const QSet<QString> &commandFlags = {},
                           const QSet<QString> &commandOptions = {});

} // namespace torchdeck::term
