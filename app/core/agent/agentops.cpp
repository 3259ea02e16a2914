#include "core/agent/agentops.h"

namespace torchdeck::agent {

QStringList operationNames()
{
    return std::apply([](auto... op) { return QStringList{QString::fromUtf16(decltype(op)::name)...}; }, Operations{});
}

bool isSubmission(const QString &operation)
{
    return std::apply(
        [&operation](auto... op) {
            return ((IsSubmission<decltype(op)>::value && operation == QString::fromUtf16(decltype(op)::name)) || ...);
        },
        Operations{});
}

} // namespace torchdeck::agent
