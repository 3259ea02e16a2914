#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torchdeck::trainer {

struct SavedCheckpoint {
    std::string path;
    std::uint64_t bytes = 0;
    double seconds = 0;
};

// Writes a checkpoint durably and keeps the newest `keep`, plus the best by validation loss.
SavedCheckpoint saveCheckpoint(const std::string &dir, int keep, std::int64_t step, std::int64_t epoch,
                               const std::vector<char> &bytes, std::optional<double> valLoss = std::nullopt);

struct ResumeChoice {
    std::string path;
    std::vector<char> bytes;
    int skipped = 0;                   // newer checkpoints rejected
    std::vector<std::string> problems; // why each was rejected
};

// Tries to restore from `bytes`; returns an empty string on success, else why it could not.
using RestoreFn = std::function<std::string(const std::vector<char> &bytes)>;

// --resume: "none" -> nothing; "auto" -> the newest checkpoint of `dir` that verifies against its sidecar
// and restores, falling back to older ones (nothing if `dir` has none; an error if it has some but none is
// usable); a PATH (file, or directory searched like auto) -> that checkpoint or an error. Throws
// std::runtime_error with the reasons.
std::optional<ResumeChoice> chooseResume(const std::string &resume, const std::string &dir, const RestoreFn &restore);

} // namespace torchdeck::trainer
