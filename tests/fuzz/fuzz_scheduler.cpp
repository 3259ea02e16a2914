// libFuzzer: the parsers of what a scheduler prints (squeue, sacct, scontrol, qstat table/full/JSON, the
// local runner's status) and of submission replies. Any input: no crash, no sanitizer report, and a job of
// a result always has an id.
#include "core/scheduler/localcommands.h"
#include "core/scheduler/qstatfullparser.h"
#include "core/scheduler/qstatjsonparser.h"
#include "core/scheduler/sacctparser.h"
#include "core/scheduler/scontrolparser.h"
#include "core/scheduler/squeueparser.h"
#include "core/scheduler/submitreply.h"

#include <cstdlib>

using namespace torchdeck;

namespace {
void check(const JobListResult &result)
{
    for (const JobInfo &job : result.jobs) {
        if (job.id.isEmpty())
            std::abort();
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    check(parseSqueue(input));
    check(parseSacct(input));
    check(parseScontrolShowJob(input));
    check(parseQstatFull(input, PbsDialect::PbsPro));
    check(parseQstatFull(input, PbsDialect::Torque));
    check(parseQstatJson(input, PbsDialect::PbsPro));
    check(local::parseLocalStatus(input));
    for (const SubmitResult &reply : {parseSbatchReply(input), parseQsubReply(input), parseLocalReply(input)}) {
        if (reply.ok() == reply.jobId.isEmpty())
            std::abort(); // an id exactly when there is no error
    }
    return 0;
}
