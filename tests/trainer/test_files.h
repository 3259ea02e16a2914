#pragma once

#include <cstdint>
#include <string>
#include <vector>

// Scratch directories and crafted files for the trainer tests.
namespace torchdeck::trainer::test {

// A fresh empty directory under the test work directory, named after `name`.
std::string freshDir(const std::string &name);

void writeBytes(const std::string &path, const std::vector<std::uint8_t> &bytes);
void writeGzip(const std::string &path, const std::vector<std::uint8_t> &bytes);
std::vector<std::uint8_t> readBytes(const std::string &path);

// An IDX file of unsigned bytes: header for `dims`, then `payload` (which may disagree on purpose).
std::vector<std::uint8_t> idxBytes(const std::vector<std::uint32_t> &dims, const std::vector<std::uint8_t> &payload);

} // namespace torchdeck::trainer::test
