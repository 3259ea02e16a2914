#include "dist/hostlist.h"
#include "dist/tasks_per_node.h"

#include <gtest/gtest.h>

using namespace torchdeck::trainer;

using Hosts = std::vector<std::string>;

TEST(Hostlist, Expands)
{
    EXPECT_EQ(expandHostlist("node01").hosts, Hosts{"node01"});
    EXPECT_EQ(expandHostlist("a,b").hosts, (Hosts{"a", "b"}));
    EXPECT_EQ(expandHostlist("node[01-04,07]").hosts, (Hosts{"node01", "node02", "node03", "node04", "node07"}));
    EXPECT_EQ(expandHostlist("n[8-11]").hosts, (Hosts{"n8", "n9", "n10", "n11"}));
    EXPECT_EQ(expandHostlist("gpu[1-2],cpu7,login[001]").hosts, (Hosts{"gpu1", "gpu2", "cpu7", "login001"}));
    EXPECT_EQ(expandHostlist("r[1-2]-n[1-2]").hosts, (Hosts{"r1-n1", "r1-n2", "r2-n1", "r2-n2"}));
    EXPECT_EQ(expandHostlist("node[1-2]-ib").hosts, (Hosts{"node1-ib", "node2-ib"}));
    EXPECT_EQ(expandHostlist("localhost").hosts, Hosts{"localhost"});
}

TEST(Hostlist, RejectsMalformed)
{
    for (const char *bad : {"", "node[01-04", "node01-04]", "node[04-01]", "node[a-b]", "node[]", "node[1,,2]", "a,,b",
                            ",a", "node[1-2[3]]", "node[-3]", "n[0-99999999]"}) {
        const HostlistResult r = expandHostlist(bad);
        EXPECT_FALSE(r.error.empty()) << "'" << bad << "' expanded to " << r.hosts.size() << " hosts";
        EXPECT_TRUE(r.hosts.empty()) << bad;
    }
}

TEST(TasksPerNode, Expands)
{
    EXPECT_EQ(expandTasksPerNode("2").counts, (std::vector<int>{2}));
    EXPECT_EQ(expandTasksPerNode("2(x3),1").counts, (std::vector<int>{2, 2, 2, 1}));
    for (const char *bad : {"", "x", "2(x", "2(x0)", "0", "2(x3", "1,,2"})
        EXPECT_FALSE(expandTasksPerNode(bad).error.empty()) << bad;
}
