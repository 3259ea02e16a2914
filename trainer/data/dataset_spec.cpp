#include "data/dataset_spec.h"

#include "cli/value_parsers.h"

namespace torchdeck::trainer {

std::string DatasetSpec::describe() const
{
    switch (kind) {
    case Kind::FashionMnist:
        return "fashion-mnist:" + dir;
    case Kind::Mnist:
        return "mnist:" + dir;
    case Kind::Synthetic:
        return "synthetic:" + std::to_string(syntheticSize);
    }
    return {};
}

DatasetSpecResult parseDatasetSpec(const std::string &text)
{
    DatasetSpecResult r;
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const bool hasArg = colon != std::string::npos;
    const std::string arg = hasArg ? text.substr(colon + 1) : std::string();
    if (hasArg && arg.empty()) {
        r.error = "'" + text + "': empty argument after ':'";
        return r;
    }
    if (name == "fashion-mnist") {
        r.spec.kind = DatasetSpec::Kind::FashionMnist;
        r.spec.dir = hasArg ? arg : kDefaultFashionMnistDir;
    } else if (name == "mnist") {
        r.spec.kind = DatasetSpec::Kind::Mnist;
        if (!hasArg)
            r.error = "mnist needs a directory: mnist:DIR";
        r.spec.dir = arg;
    } else if (name == "synthetic") {
        r.spec.kind = DatasetSpec::Kind::Synthetic;
        r.spec.syntheticSize = kDefaultSyntheticSize;
        if (hasArg) {
            if (const std::string err = parseInt64(arg, 1, std::int64_t{1} << 32, r.spec.syntheticSize); !err.empty())
                r.error = "synthetic:N: " + err;
        }
    } else {
        r.error = "unknown dataset '" + name + "' (fashion-mnist[:DIR], mnist:DIR, synthetic[:N])";
    }
    return r;
}

} // namespace torchdeck::trainer
