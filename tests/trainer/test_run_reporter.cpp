#include "metrics/run_reporter.h"
#include "test_files.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace torchdeck::trainer;
using namespace torchdeck::trainer::test;

// A job killed mid-line left a torn last line in its attempt's metrics file; the requeued run appends to the
// same file. Its first event must start a line of its own, not be glued to the fragment (and lost with it).
TEST(RunReporter, EndsATornLastLineBeforeItsFirstEvent)
{
    const std::string path = freshDir("reporter_torn") + "/metrics-0.jsonl";
    {
        std::ofstream torn(path);
        torn << "{\"schema\":1,\"event\":\"step\",\"time\":1.0,\"step\":1}\n{\"schema\":1,\"event\":\"st";
    }
    {
        RunReporter reporter(path, true);
        reporter.stop({"done", 0, 7, {}, {}});
    }
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1], "{\"schema\":1,\"event\":\"st");
    EXPECT_EQ(lines[2].rfind("{\"schema\":", 0), 0u) << lines[2];
    EXPECT_NE(lines[2].find("\"event\":\"stop\""), std::string::npos) << lines[2];

    // A file that ends cleanly gets nothing added.
    {
        RunReporter reporter(path, true);
        reporter.stop({"done", 0, 8, {}, {}});
    }
    std::ifstream again(path);
    std::stringstream all;
    all << again.rdbuf();
    EXPECT_EQ(all.str().find("\n\n"), std::string::npos);
}
