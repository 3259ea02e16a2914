#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// File-level checkpoint handling, no torch: names, atomic durable writes, sidecar checksums, listing,
// pruning. A checkpoint is `checkpoint-<step>.pt` (what torch.load reads) plus `checkpoint-<step>.pt.json`
// (size and CRC-32 of the .pt), each written to a temporary file, fsync'ed and renamed, the sidecar last:
// a .pt without a matching sidecar is torn.

struct CheckpointFile {
    std::string path;
    std::int64_t step = 0;
};

std::string checkpointFileName(std::int64_t step);
std::string sidecarPath(const std::string &checkpointPath);

// Checkpoints of `dir`, newest (highest step) first. A missing directory gives an empty list.
std::vector<CheckpointFile> listCheckpoints(const std::string &dir);

// Writes `bytes` to `dir`/checkpoint-<step>.pt and its sidecar; returns the path. Throws on I/O errors.
// `valLoss`, the validation loss of the epoch just finished, goes into the sidecar: pruning keeps the best.
std::string writeCheckpointFiles(const std::string &dir, std::int64_t step, std::int64_t epoch,
                                 const std::vector<char> &bytes, std::optional<double> valLoss = std::nullopt);

enum class CheckpointCheck { Ok, NoSidecar, Bad };
struct CheckpointVerdict {
    CheckpointCheck check = CheckpointCheck::Bad;
    std::string problem;
    std::vector<char> bytes; // the file's contents when readable
};

// Reads the checkpoint and compares it with its sidecar (size and CRC-32).
CheckpointVerdict verifyCheckpoint(const std::string &path);

// A checkpoint whose sidecar is there and names its size (a cheap check: no CRC of the whole file).
bool isCompleteCheckpoint(const std::string &path);

// Removes all but the newest `keep` complete checkpoints (and their sidecars), every torn one, and stale
// temporary files. The checkpoint with the lowest validation loss in its sidecar is kept apart from those K.
void pruneCheckpoints(const std::string &dir, int keep);

// The checkpoint whose sidecar holds the lowest validation loss; empty when none holds one.
std::string bestCheckpoint(const std::string &dir);

std::uint32_t crc32Of(const std::vector<char> &bytes);

} // namespace torchdeck::trainer
