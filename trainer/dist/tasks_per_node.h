#pragma once

#include <string>
#include <vector>

namespace torchdeck::trainer {

struct TasksPerNodeResult {
    std::vector<int> counts; // one entry per node
    std::string error;       // empty on success
};

// Expands Slurm's SLURM_TASKS_PER_NODE form: "2(x3),1" -> {2, 2, 2, 1}.
TasksPerNodeResult expandTasksPerNode(const std::string &text);

} // namespace torchdeck::trainer
