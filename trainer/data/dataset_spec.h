#pragma once

#include <cstdint>
#include <string>

namespace torchdeck::trainer {

constexpr const char *kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";
constexpr std::int64_t kDefaultSyntheticSize = 1024;

struct DatasetSpec {
    enum class Kind { FashionMnist, Mnist, Synthetic };
    Kind kind = Kind::FashionMnist;
    std::string dir;                // IDX datasets
    std::int64_t syntheticSize = 0; // training samples of synthetic
    std::string describe() const;
};

struct DatasetSpecResult {
    DatasetSpec spec;
    std::string error;
};

// fashion-mnist[:DIR] | mnist:DIR | synthetic[:N]
DatasetSpecResult parseDatasetSpec(const std::string &text);

} // namespace torchdeck::trainer
