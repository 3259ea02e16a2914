#include "dist/launch_env.h"
#include "dist/worker_launcher.h"

#include <gtest/gtest.h>

using namespace torchdeck::trainer;

namespace {

std::optional<std::string> fakeFiles(const std::string &path)
{
    if (path == "/pbs/nodes")
        return std::string("cn1\ncn1\ncn2\ncn2\n");
    if (path == "/pbs/empty")
        return std::string("\n  \n");
    return std::nullopt;
}

struct EnvCase {
    std::string name;
    EnvMap env;
    LaunchKind kind;
    int rank, world, localRank, localWorld, nodeRank, nodes;
    std::string master;
    int port;
};

void PrintTo(const EnvCase &c, std::ostream *os)
{
    *os << c.name;
}

class LaunchEnvTable : public ::testing::TestWithParam<EnvCase> {};

TEST_P(LaunchEnvTable, Detects)
{
    const EnvCase &c = GetParam();
    const LaunchEnvResult r = detectLaunchEnv(c.env, fakeFiles);
    ASSERT_EQ(r.error, "") << c.name;
    EXPECT_EQ(r.env.kind, c.kind);
    EXPECT_EQ(r.env.rank, c.rank);
    EXPECT_EQ(r.env.worldSize, c.world);
    EXPECT_EQ(r.env.localRank, c.localRank);
    EXPECT_EQ(r.env.localWorldSize, c.localWorld);
    EXPECT_EQ(r.env.nodeRank, c.nodeRank);
    EXPECT_EQ(r.env.numNodes, c.nodes);
    EXPECT_EQ(r.env.masterAddr, c.master);
    EXPECT_EQ(r.env.masterPort, c.port);
}

const EnvMap kSlurmStep = {{"SLURM_JOB_ID", "1234"},
                           {"SLURM_STEP_ID", "0"},
                           {"SLURM_PROCID", "5"},
                           {"SLURM_LOCALID", "1"},
                           {"SLURM_NODEID", "2"},
                           {"SLURM_STEP_NUM_TASKS", "8"},
                           {"SLURM_STEP_NUM_NODES", "4"},
                           {"SLURM_STEP_TASKS_PER_NODE", "2(x4)"},
                           {"SLURM_STEP_NODELIST", "node[01-04,07]"},
                           {"SLURM_NTASKS", "8"}};

EnvMap with(EnvMap env, const EnvMap &extra)
{
    for (const auto &[k, v] : extra)
        env[k] = v;
    return env;
}

INSTANTIATE_TEST_SUITE_P(
    Table, LaunchEnvTable,
    ::testing::Values(
        EnvCase{"nothing", {}, LaunchKind::Single, 0, 1, 0, 1, 0, 1, "127.0.0.1", 29500},
        EnvCase{"single with master port",
                {{"MASTER_PORT", "4000"}},
                LaunchKind::Single,
                0,
                1,
                0,
                1,
                0,
                1,
                "127.0.0.1",
                4000},
        EnvCase{"torchrun",
                {{"RANK", "3"},
                 {"WORLD_SIZE", "4"},
                 {"LOCAL_RANK", "1"},
                 {"LOCAL_WORLD_SIZE", "2"},
                 {"GROUP_RANK", "1"},
                 {"MASTER_ADDR", "10.0.0.1"},
                 {"MASTER_PORT", "29400"}},
                LaunchKind::Torchrun,
                3,
                4,
                1,
                2,
                1,
                2,
                "10.0.0.1",
                29400},
        EnvCase{"torchrun wins over slurm", with(kSlurmStep, {{"RANK", "0"}, {"WORLD_SIZE", "1"}}),
                LaunchKind::Torchrun, 0, 1, 0, 1, 0, 1, "127.0.0.1", 29500},
        EnvCase{"slurm step", kSlurmStep, LaunchKind::Slurm, 5, 8, 1, 2, 2, 4, "node01", 15000 + 1234},
        EnvCase{"slurm with MASTER_ADDR/PORT", with(kSlurmStep, {{"MASTER_ADDR", "head"}, {"MASTER_PORT", "5555"}}),
                LaunchKind::Slurm, 5, 8, 1, 2, 2, 4, "head", 5555},
        EnvCase{"slurm job nodelist fallback",
                {{"SLURM_STEP_ID", "1"},
                 {"SLURM_PROCID", "0"},
                 {"SLURM_NTASKS", "2"},
                 {"SLURM_NNODES", "2"},
                 {"SLURM_JOB_NODELIST", "gpu[7-8]"}},
                LaunchKind::Slurm,
                0,
                2,
                0,
                1,
                0,
                2,
                "gpu7",
                29500},
        EnvCase{"slurm batch shell is not a task launch",
                {{"SLURM_JOB_ID", "9"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_NODELIST", "n1"}},
                LaunchKind::Single,
                0,
                1,
                0,
                1,
                0,
                1,
                "127.0.0.1",
                29500},
        EnvCase{"open mpi one node",
                {{"OMPI_COMM_WORLD_RANK", "1"},
                 {"OMPI_COMM_WORLD_SIZE", "2"},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                 {"MASTER_PORT", "7000"}},
                LaunchKind::OpenMpi,
                1,
                2,
                1,
                2,
                0,
                1,
                "127.0.0.1",
                7000},
        EnvCase{"open mpi in a slurm allocation",
                {{"OMPI_COMM_WORLD_RANK", "3"},
                 {"OMPI_COMM_WORLD_SIZE", "4"},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                 {"OMPI_COMM_WORLD_NODE_RANK", "1"},
                 {"SLURM_JOB_ID", "77"},
                 {"SLURM_JOB_NODELIST", "c[3-4]"}},
                LaunchKind::OpenMpi,
                3,
                4,
                1,
                2,
                1,
                2,
                "c3",
                15077},
        EnvCase{"mpirun inside a slurm step (orted started by srun)",
                with(kSlurmStep, {{"SLURM_PROCID", "0"},
                                  {"SLURM_STEP_NUM_TASKS", "1"},
                                  {"OMPI_COMM_WORLD_RANK", "1"},
                                  {"OMPI_COMM_WORLD_SIZE", "2"},
                                  {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                  {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                  {"MASTER_PORT", "7001"}}),
                LaunchKind::OpenMpi, 1, 2, 1, 2, 0, 1, "127.0.0.1", 7001},
        EnvCase{"open mpi under pbs",
                {{"OMPI_COMM_WORLD_RANK", "0"},
                 {"OMPI_COMM_WORLD_SIZE", "4"},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                 {"PBS_NODEFILE", "/pbs/nodes"}},
                LaunchKind::OpenMpi,
                0,
                4,
                0,
                2,
                0,
                2,
                "cn1",
                29500},
        EnvCase{
            "pbs job script", {{"PBS_NODEFILE", "/pbs/nodes"}}, LaunchKind::Pbs, 0, 1, 0, 1, 0, 2, "127.0.0.1", 29500},
        EnvCase{"pbsdsh task",
                {{"PBS_NODEFILE", "/pbs/nodes"}, {"PBS_VNODENUM", "3"}},
                LaunchKind::Pbs,
                3,
                4,
                1,
                2,
                1,
                2,
                "cn1",
                29500}));

struct BadEnv {
    std::string name;
    EnvMap env;
    std::string expected;
};

void PrintTo(const BadEnv &c, std::ostream *os)
{
    *os << c.name;
}

class MalformedEnv : public ::testing::TestWithParam<BadEnv> {};

TEST_P(MalformedEnv, IsAnError)
{
    const LaunchEnvResult r = detectLaunchEnv(GetParam().env, fakeFiles);
    EXPECT_NE(r.error.find(GetParam().expected), std::string::npos) << "got: '" << r.error << "'";
}

INSTANTIATE_TEST_SUITE_P(
    Table, MalformedEnv,
    ::testing::Values(
        BadEnv{"rank not a number", {{"RANK", "one"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "RANK: 'one'"},
        BadEnv{"negative rank", {{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "RANK: '-1'"},
        BadEnv{"rank too large", {{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "not below the world"},
        BadEnv{"zero world", {{"RANK", "0"}, {"WORLD_SIZE", "0"}}, "WORLD_SIZE: '0'"},
        BadEnv{"rank without world", {{"RANK", "0"}}, "must be set together"},
        BadEnv{"no master for a world", {{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "MASTER_ADDR"},
        BadEnv{"port out of range", {{"MASTER_PORT", "70000"}}, "MASTER_PORT: '70000' is out of range"},
        BadEnv{"port garbage", {{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_PORT", "80a"}}, "MASTER_PORT"},
        BadEnv{"slurm bad nodelist", with(kSlurmStep, {{"SLURM_STEP_NODELIST", "node[01-"}}),
               "SLURM_STEP_NODELIST: unbalanced"},
        BadEnv{"slurm reversed range", with(kSlurmStep, {{"SLURM_STEP_NODELIST", "node[09-02]"}}), "reversed"},
        BadEnv{"slurm procid", with(kSlurmStep, {{"SLURM_PROCID", "x"}}), "SLURM_PROCID: 'x'"},
        BadEnv{"slurm procid beyond tasks", with(kSlurmStep, {{"SLURM_PROCID", "8"}}), "not below the world size"},
        BadEnv{"slurm tasks per node", with(kSlurmStep, {{"SLURM_STEP_TASKS_PER_NODE", "2(x"}}), "tasks-per-node"},
        BadEnv{
            "open mpi size", {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "two"}}, "OMPI_COMM_WORLD_SIZE"},
        BadEnv{"open mpi multi-node without master",
               {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}},
               "MASTER_ADDR"},
        BadEnv{"pbs unreadable nodefile", {{"PBS_NODEFILE", "/nope"}}, "cannot be read"},
        BadEnv{"pbs empty nodefile", {{"PBS_NODEFILE", "/pbs/empty"}}, "lists no hosts"},
        BadEnv{"pbs vnodenum beyond", {{"PBS_NODEFILE", "/pbs/nodes"}, {"PBS_VNODENUM", "4"}}, "PBS_VNODENUM=4"}));

} // namespace

TEST(WorkerPlan, SingleNodeUsesAFreeLoopbackPort)
{
    LaunchEnv node;
    const WorkerPlan plan = planWorkers(node, 2, /*masterPortSet=*/false, 45678);
    EXPECT_EQ(plan.masterAddr, "127.0.0.1");
    EXPECT_EQ(plan.masterPort, 45678);
    const EnvMap env = workerEnvironment(plan, 1);
    EXPECT_EQ(env.at("RANK"), "1");
    EXPECT_EQ(env.at("WORLD_SIZE"), "2");
    EXPECT_EQ(env.at("LOCAL_RANK"), "1");
    EXPECT_EQ(env.at("MASTER_PORT"), "45678");
    EXPECT_EQ(env.at("TORCHDECK_WORKER"), "1");
}

TEST(WorkerPlan, SlurmNodeLauncher)
{
    // srun --ntasks-per-node=1 on 3 nodes, this is the second: ranks 4..7 of 12 with 4 per node.
    const LaunchEnvResult node = detectLaunchEnv({{"SLURM_STEP_ID", "0"},
                                                  {"SLURM_PROCID", "1"},
                                                  {"SLURM_NODEID", "1"},
                                                  {"SLURM_STEP_NUM_TASKS", "3"},
                                                  {"SLURM_STEP_NUM_NODES", "3"},
                                                  {"SLURM_STEP_NODELIST", "n[1-3]"},
                                                  {"SLURM_JOB_ID", "42"}},
                                                 fakeFiles);
    ASSERT_EQ(node.error, "");
    const WorkerPlan plan = planWorkers(node.env, 4, false, 1);
    const EnvMap env = workerEnvironment(plan, 3);
    EXPECT_EQ(env.at("RANK"), "7");
    EXPECT_EQ(env.at("WORLD_SIZE"), "12");
    EXPECT_EQ(env.at("GROUP_RANK"), "1");
    EXPECT_EQ(env.at("MASTER_ADDR"), "n1");
    EXPECT_EQ(env.at("MASTER_PORT"), "15042");
    // ...which the worker reads back as torchrun-style.
    const LaunchEnvResult worker = detectLaunchEnv(env, fakeFiles);
    ASSERT_EQ(worker.error, "");
    EXPECT_EQ(worker.env.kind, LaunchKind::Torchrun);
    EXPECT_EQ(worker.env.rank, 7);
    EXPECT_EQ(worker.env.localRank, 3);
    EXPECT_EQ(worker.env.nodeRank, 1);
    EXPECT_EQ(worker.env.numNodes, 3);
}
