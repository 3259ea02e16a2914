#include "data/dataset.h"
#include "data/idx_file.h"

#include <filesystem>
#include <stdexcept>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

constexpr float kPixelScale = 1.0f / 255.0f;
constexpr std::int64_t kClasses = 10;

std::string findIdx(const std::string &dir, const std::string &base)
{
    namespace fs = std::filesystem;
    for (const std::string &candidate : {base + ".gz", base}) {
        const fs::path path = fs::path(dir) / candidate;
        if (fs::exists(path))
            return path.string();
    }
    throw std::runtime_error("dataset file '" + base + "' (or '" + base + ".gz') not found in '" + dir + "'");
}

IdxArray readOrThrow(const std::string &path, std::size_t rank, std::int64_t limit)
{
    IdxResult r = readIdxFile(path, rank, static_cast<std::uint64_t>(limit));
    if (!r.error.empty())
        throw std::runtime_error(r.error);
    return std::move(r.array);
}

Dataset loadSplit(const std::string &dir, const std::string &prefix, std::int64_t limit)
{
    const std::string imagesPath = findIdx(dir, prefix + "-images-idx3-ubyte");
    const std::string labelsPath = findIdx(dir, prefix + "-labels-idx1-ubyte");
    IdxArray images = readOrThrow(imagesPath, 3, limit);
    IdxArray labels = readOrThrow(labelsPath, 1, limit);
    if (images.dims[0] != labels.dims[0])
        throw std::runtime_error(imagesPath + " holds " + std::to_string(images.dims[0]) + " images but " + labelsPath +
                                 " " + std::to_string(labels.dims[0]) + " labels");
    const auto n = static_cast<std::int64_t>(images.dims[0]);
    const auto h = static_cast<std::int64_t>(images.dims[1]);
    const auto w = static_cast<std::int64_t>(images.dims[2]);
    for (const std::uint8_t label : labels.data) {
        if (label >= kClasses)
            throw std::runtime_error(labelsPath + ": label " + std::to_string(label) + " is not below " +
                                     std::to_string(kClasses));
    }
    Dataset d;
    auto bytes = torch::from_blob(images.data.data(), {n, 1, h, w}, torch::kUInt8);
    d.inputs = bytes.to(torch::kFloat32).mul_(kPixelScale);
    d.targets = torch::from_blob(labels.data.data(), {n}, torch::kUInt8).to(torch::kInt64);
    d.numClasses = kClasses;
    return d;
}

} // namespace

DatasetSplits loadIdxDatasets(const std::string &dir, std::int64_t limit)
{
    DatasetSplits s;
    s.train = loadSplit(dir, "train", limit);
    s.val = loadSplit(dir, "t10k", limit);
    return s;
}

DatasetSplits loadDatasets(const DatasetSpec &spec, const std::vector<std::int64_t> &syntheticShape, std::int64_t limit)
{
    if (spec.kind == DatasetSpec::Kind::Synthetic)
        return makeSyntheticDatasets(spec.syntheticSize, syntheticShape, limit);
    return loadIdxDatasets(spec.dir, limit);
}

} // namespace torchdeck::trainer
