#include "dist/tasks_per_node.h"

#include "cli/value_parsers.h"

#include <algorithm>

namespace torchdeck::trainer {

TasksPerNodeResult expandTasksPerNode(const std::string &text)
{
    constexpr int kMaxNodes = 1 << 20;
    TasksPerNodeResult result;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const std::size_t paren = item.find("(x");
        int count = 0;
        int repeat = 1;
        std::string err = parseInt(item.substr(0, paren), 1, kMaxNodes, count);
        if (err.empty() && paren != std::string::npos) {
            if (item.back() != ')')
                err = "missing ')'";
            else
                err = parseInt(item.substr(paren + 2, item.size() - paren - 3), 1, kMaxNodes, repeat);
        }
        if (!err.empty() || result.counts.size() + static_cast<std::size_t>(repeat) > kMaxNodes) {
            result.error = "malformed tasks-per-node item '" + item + "' in '" + text + "'";
            result.counts.clear();
            return result;
        }
        result.counts.insert(result.counts.end(), static_cast<std::size_t>(repeat), count);
        start = comma + 1;
    }
    return result;
}

} // namespace torchdeck::trainer
