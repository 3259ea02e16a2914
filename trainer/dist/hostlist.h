#pragma once

#include <string>
#include <vector>

namespace torchdeck::trainer {

struct HostlistResult {
    std::vector<std::string> hosts;
    std::string error; // empty on success
};

// Expands a Slurm hostlist: "node[01-04,07]", "a,b", "rack[1-2]-n[1-3]" (every bracket of a name is a
// dimension, expanded in order), keeping zero padding. Malformed lists (unbalanced brackets, reversed or
// non-numeric ranges, empty names) are reported, never guessed at.
HostlistResult expandHostlist(const std::string &list);

} // namespace torchdeck::trainer
