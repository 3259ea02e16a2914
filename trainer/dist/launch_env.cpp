#include "dist/launch_env.h"

#include "cli/value_parsers.h"
#include "dist/hostlist.h"
#include "dist/tasks_per_node.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

extern char **environ; // NOLINT: POSIX

namespace torchdeck::trainer {

namespace {

constexpr int kMaxWorld = 1 << 24;
constexpr int kSlurmPortBase = 15000;

struct Reader {
    const EnvMap &env;
    std::string error;

    bool has(const std::string &name) const { return env.count(name) != 0; }

    // Reads an integer variable; missing gives `fallback`, malformed records an error.
    int integer(const std::string &name, int min, int max, int fallback)
    {
        const auto it = env.find(name);
        if (it == env.end())
            return fallback;
        int value = fallback;
        if (const std::string err = parseInt(it->second, min, max, value); !err.empty() && error.empty())
            error = name + ": " + err;
        return value;
    }

    std::string text(const std::string &name) const
    {
        const auto it = env.find(name);
        return it == env.end() ? std::string() : it->second;
    }
};

std::string firstOf(const Reader &r, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        if (r.has(name) && !r.text(name).empty())
            return name;
    }
    return {};
}

void checkRank(Reader &r, const LaunchEnv &e, const char *rankName)
{
    if (r.error.empty() && e.rank >= e.worldSize)
        r.error = std::string(rankName) + "=" + std::to_string(e.rank) + " is not below the world size " +
                  std::to_string(e.worldSize);
    if (r.error.empty() && e.localRank >= e.localWorldSize)
        r.error = "local rank " + std::to_string(e.localRank) + " is not below the local world size " +
                  std::to_string(e.localWorldSize);
}

std::string firstHostOfSlurm(Reader &r)
{
    const std::string var = firstOf(r, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
    if (var.empty())
        return {};
    const HostlistResult hosts = expandHostlist(r.text(var));
    if (!hosts.error.empty()) {
        if (r.error.empty())
            r.error = var + ": " + hosts.error;
        return {};
    }
    return hosts.hosts.front();
}

std::vector<std::string> nodefileLines(const std::string &contents)
{
    std::vector<std::string> lines;
    std::istringstream in(contents);
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t\r");
        const auto last = line.find_last_not_of(" \t\r");
        if (first != std::string::npos)
            lines.push_back(line.substr(first, last - first + 1));
    }
    return lines;
}

int slurmDefaultPort(Reader &r)
{
    if (!r.has("SLURM_JOB_ID"))
        return kDefaultMasterPort;
    const int jobId = r.integer("SLURM_JOB_ID", 0, INT32_MAX, 0);
    return kSlurmPortBase + jobId % 10000; // the Lightning convention: distinct per job on shared nodes
}

void readMaster(Reader &r, LaunchEnv &e, const std::string &fallbackAddr, int fallbackPort)
{
    e.masterAddr = r.has("MASTER_ADDR") ? r.text("MASTER_ADDR") : fallbackAddr;
    e.masterPort = r.integer("MASTER_PORT", 1, 65535, fallbackPort);
    if (r.error.empty() && e.masterAddr.empty())
        r.error = "no master address: set MASTER_ADDR";
}

LaunchEnv torchrun(Reader &r)
{
    LaunchEnv e;
    e.kind = LaunchKind::Torchrun;
    if (!r.has("RANK") || !r.has("WORLD_SIZE"))
        r.error = "RANK and WORLD_SIZE must be set together";
    e.worldSize = r.integer("WORLD_SIZE", 1, kMaxWorld, 1);
    e.rank = r.integer("RANK", 0, kMaxWorld, 0);
    e.localRank = r.integer("LOCAL_RANK", 0, kMaxWorld, 0);
    e.localWorldSize = r.integer("LOCAL_WORLD_SIZE", 1, kMaxWorld, std::max(e.localRank + 1, 1));
    e.nodeRank = r.integer("GROUP_RANK", 0, kMaxWorld, 0);
    e.numNodes = r.integer("GROUP_WORLD_SIZE", 1, kMaxWorld, std::max(1, e.worldSize / e.localWorldSize));
    readMaster(r, e, e.worldSize > 1 ? "" : "127.0.0.1", kDefaultMasterPort);
    checkRank(r, e, "RANK");
    return e;
}

LaunchEnv slurm(Reader &r)
{
    LaunchEnv e;
    e.kind = LaunchKind::Slurm;
    e.worldSize = r.integer(r.has("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS", 1, kMaxWorld, 1);
    e.rank = r.integer("SLURM_PROCID", 0, kMaxWorld, 0);
    e.localRank = r.integer("SLURM_LOCALID", 0, kMaxWorld, 0);
    e.nodeRank = r.integer("SLURM_NODEID", 0, kMaxWorld, 0);
    const std::string nodesVar = firstOf(r, {"SLURM_STEP_NUM_NODES", "SLURM_NNODES", "SLURM_JOB_NUM_NODES"});
    e.numNodes = nodesVar.empty() ? 1 : r.integer(nodesVar, 1, kMaxWorld, 1);
    const std::string perNodeVar = firstOf(r, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
    e.localWorldSize = e.worldSize / e.numNodes;
    if (!perNodeVar.empty() && r.error.empty()) {
        const TasksPerNodeResult perNode = expandTasksPerNode(r.text(perNodeVar));
        if (!perNode.error.empty())
            r.error = perNodeVar + ": " + perNode.error;
        else if (e.nodeRank >= static_cast<int>(perNode.counts.size()))
            r.error = perNodeVar + " has no entry for node " + std::to_string(e.nodeRank);
        else
            e.localWorldSize = perNode.counts[static_cast<std::size_t>(e.nodeRank)];
    }
    const std::string host = firstHostOfSlurm(r);
    readMaster(r, e, host.empty() && e.worldSize == 1 ? "127.0.0.1" : host, slurmDefaultPort(r));
    if (r.error.empty() && e.nodeRank >= e.numNodes)
        r.error =
            "SLURM_NODEID=" + std::to_string(e.nodeRank) + " is not below the node count " + std::to_string(e.numNodes);
    checkRank(r, e, "SLURM_PROCID");
    return e;
}

LaunchEnv openMpi(Reader &r, const FileReader &readFile)
{
    LaunchEnv e;
    e.kind = LaunchKind::OpenMpi;
    e.worldSize = r.integer("OMPI_COMM_WORLD_SIZE", 1, kMaxWorld, 1);
    e.rank = r.integer("OMPI_COMM_WORLD_RANK", 0, kMaxWorld, 0);
    e.localRank = r.integer("OMPI_COMM_WORLD_LOCAL_RANK", 0, kMaxWorld, 0);
    e.localWorldSize = r.integer("OMPI_COMM_WORLD_LOCAL_SIZE", 1, kMaxWorld, 1);
    e.nodeRank = r.integer("OMPI_COMM_WORLD_NODE_RANK", 0, kMaxWorld, 0);
    e.numNodes = std::max(1, (e.worldSize + e.localWorldSize - 1) / e.localWorldSize);
    std::string host;
    if (e.localWorldSize == e.worldSize)
        host = "127.0.0.1";
    if (host.empty())
        host = firstHostOfSlurm(r);
    if (host.empty() && r.has("PBS_NODEFILE")) {
        if (const auto contents = readFile(r.text("PBS_NODEFILE")); contents) {
            const auto lines = nodefileLines(*contents);
            if (!lines.empty())
                host = lines.front();
        }
    }
    int port = r.has("SLURM_JOB_ID") ? slurmDefaultPort(r) : kDefaultMasterPort;
    readMaster(r, e, host, port);
    if (r.error.empty() && e.masterAddr.empty())
        r.error = "multi-node Open MPI launch without MASTER_ADDR: pass it with mpirun -x MASTER_ADDR=<first host>";
    checkRank(r, e, "OMPI_COMM_WORLD_RANK");
    return e;
}

LaunchEnv pbs(Reader &r, const FileReader &readFile)
{
    LaunchEnv e;
    e.kind = LaunchKind::Pbs;
    const std::string path = r.text("PBS_NODEFILE");
    const auto contents = readFile(path);
    if (!contents) {
        r.error = "PBS_NODEFILE '" + path + "' cannot be read";
        return e;
    }
    const std::vector<std::string> slots = nodefileLines(*contents);
    if (slots.empty()) {
        r.error = "PBS_NODEFILE '" + path + "' lists no hosts";
        return e;
    }
    std::vector<std::string> nodes;
    for (const std::string &s : slots) {
        if (std::find(nodes.begin(), nodes.end(), s) == nodes.end())
            nodes.push_back(s);
    }
    e.numNodes = static_cast<int>(nodes.size());
    if (r.has("PBS_VNODENUM")) { // one process per slot (pbsdsh)
        e.worldSize = static_cast<int>(slots.size());
        e.rank = r.integer("PBS_VNODENUM", 0, kMaxWorld, 0);
        const std::string &myHost = slots[static_cast<std::size_t>(std::min<int>(e.rank, e.worldSize - 1))];
        e.nodeRank = static_cast<int>(std::find(nodes.begin(), nodes.end(), myHost) - nodes.begin());
        e.localWorldSize = static_cast<int>(std::count(slots.begin(), slots.end(), myHost));
        e.localRank =
            static_cast<int>(std::count(slots.begin(), slots.begin() + std::min<int>(e.rank, e.worldSize - 1), myHost));
    } else { // the job script itself: one process on the first node
        e.numNodes = static_cast<int>(nodes.size());
    }
    readMaster(r, e, e.worldSize == 1 ? "127.0.0.1" : slots.front(), kDefaultMasterPort);
    checkRank(r, e, "PBS_VNODENUM");
    return e;
}

} // namespace

LaunchEnvResult detectLaunchEnv(const EnvMap &env, const FileReader &readFile)
{
    Reader r{env, {}};
    LaunchEnvResult result;
    if (r.has("RANK") || r.has("WORLD_SIZE"))
        result.env = torchrun(r);
    // mpirun inside an allocation starts its ranks through an srun step of its own: they inherit that
    // step's SLURM_PROCID (one task per node), so Open MPI's variables win over Slurm's.
    else if (r.has("SLURM_PROCID") && (r.has("SLURM_STEP_ID") || r.has("SLURM_STEPID")) &&
             !r.has("OMPI_COMM_WORLD_RANK"))
        result.env = slurm(r);
    else if (r.has("OMPI_COMM_WORLD_RANK") || r.has("OMPI_COMM_WORLD_SIZE"))
        result.env = openMpi(r, readFile);
    else if (r.has("PBS_NODEFILE"))
        result.env = pbs(r, readFile);
    else
        readMaster(r, result.env, "127.0.0.1", kDefaultMasterPort);
    result.error = r.error;
    return result;
}

EnvMap processEnvironment()
{
    EnvMap env;
    for (char **entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string item(*entry);
        const auto eq = item.find('=');
        if (eq != std::string::npos)
            env.emplace(item.substr(0, eq), item.substr(eq + 1));
    }
    return env;
}

std::optional<std::string> readWholeFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

const char *launchKindName(LaunchKind kind)
{
    switch (kind) {
    case LaunchKind::Single:
        return "single";
    case LaunchKind::Torchrun:
        return "torchrun";
    case LaunchKind::Slurm:
        return "slurm";
    case LaunchKind::OpenMpi:
        return "openmpi";
    case LaunchKind::Pbs:
        return "pbs";
    }
    return "unknown";
}

} // namespace torchdeck::trainer
