#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// An IDX array of unsigned bytes (the MNIST file format): dims[0] items of dims[1..] each.
struct IdxArray {
    std::vector<std::uint32_t> dims;
    std::vector<std::uint8_t> data;
};

struct IdxResult {
    IdxArray array;
    std::string error; // empty on success
};

// Reads an IDX file (gzipped or raw) of element type unsigned byte with `expectedRank` dimensions.
// maxItems > 0 reads only the first maxItems items (the rest of the file is not read nor checked);
// otherwise the whole file must match its header exactly: missing bytes are "truncated", extra bytes
// are "trailing data".
IdxResult readIdxFile(const std::string &path, std::size_t expectedRank, std::uint64_t maxItems = 0);

} // namespace torchdeck::trainer
