#include "checkpoint/checkpoint_files.h"
#include "checkpoint/checkpoint_store.h"
#include "test_files.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace torchdeck::trainer;
using namespace torchdeck::trainer::test;
namespace fs = std::filesystem;

namespace {

std::vector<char> payload(char fill, std::size_t n = 1000)
{
    return std::vector<char>(n, fill);
}

// A stand-in restore: accepts payloads whose first byte is not 'X' and records what it saw.
struct Recorder {
    std::vector<char> restored;
    std::string operator()(const std::vector<char> &bytes)
    {
        if (!bytes.empty() && bytes[0] == 'X')
            return "unpicklable";
        restored = bytes;
        return {};
    }
};

} // namespace

TEST(CheckpointFiles, WriteVerifyList)
{
    const std::string dir = freshDir("ckpt_write");
    const std::string path = writeCheckpointFiles(dir, 42, 1, payload('a'));
    EXPECT_EQ(fs::path(path).filename(), "checkpoint-0000000042.pt");
    EXPECT_TRUE(fs::exists(sidecarPath(path)));
    const CheckpointVerdict v = verifyCheckpoint(path);
    EXPECT_EQ(v.check, CheckpointCheck::Ok) << v.problem;
    EXPECT_EQ(v.bytes, payload('a'));
    writeCheckpointFiles(dir, 7, 0, payload('b'));
    writeCheckpointFiles(dir, 100, 2, payload('c'));
    const auto files = listCheckpoints(dir);
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0].step, 100);
    EXPECT_EQ(files[2].step, 7);
    EXPECT_TRUE(listCheckpoints(dir + "/does-not-exist").empty());
}

TEST(CheckpointFiles, DetectsTornAndCorruptFiles)
{
    const std::string dir = freshDir("ckpt_corrupt");
    const std::string flipped = writeCheckpointFiles(dir, 1, 0, payload('a'));
    auto bytes = readBytes(flipped);
    bytes[500] ^= 0x01;
    writeBytes(flipped, bytes);
    EXPECT_EQ(verifyCheckpoint(flipped).check, CheckpointCheck::Bad);
    EXPECT_NE(verifyCheckpoint(flipped).problem.find("CRC-32"), std::string::npos);

    const std::string truncated = writeCheckpointFiles(dir, 2, 0, payload('b'));
    fs::resize_file(truncated, 600);
    EXPECT_EQ(verifyCheckpoint(truncated).check, CheckpointCheck::Bad);
    EXPECT_NE(verifyCheckpoint(truncated).problem.find("600 bytes"), std::string::npos);

    const std::string noSidecar = writeCheckpointFiles(dir, 3, 0, payload('c'));
    fs::remove(sidecarPath(noSidecar));
    EXPECT_EQ(verifyCheckpoint(noSidecar).check, CheckpointCheck::NoSidecar);
}

TEST(CheckpointFiles, KeepsTheNewestK)
{
    const std::string dir = freshDir("ckpt_keep");
    for (int step = 1; step <= 5; ++step)
        saveCheckpoint(dir, 2, step * 10, 0, payload('a'));
    const auto files = listCheckpoints(dir);
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].step, 50);
    EXPECT_EQ(files[1].step, 40);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto &e : fs::directory_iterator(dir))
        ++entries;
    EXPECT_EQ(entries, 4u); // two .pt and two sidecars, no temporaries
}

// A resume fell back past a torn checkpoint (41: its sidecar never written): the next saves must not count it
// among the K kept, or the sound 32 it resumed from goes while the torn one stays.
TEST(CheckpointFiles, TornCheckpointsDoNotCountTowardsK)
{
    const std::string dir = freshDir("ckpt_torn");
    saveCheckpoint(dir, 2, 16, 0, payload('a'));
    saveCheckpoint(dir, 2, 32, 0, payload('b'));
    const std::string torn = writeCheckpointFiles(dir, 41, 0, payload('c'));
    fs::remove(sidecarPath(torn));
    saveCheckpoint(dir, 2, 48, 1, payload('d'));
    const auto files = listCheckpoints(dir);
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].step, 48);
    EXPECT_EQ(files[1].step, 32);
    EXPECT_FALSE(fs::exists(torn));
    EXPECT_TRUE(isCompleteCheckpoint(files[1].path));
    fs::resize_file(files[1].path, 10); // a truncated one is torn too
    EXPECT_FALSE(isCompleteCheckpoint(files[1].path));
}

TEST(CheckpointFiles, KeepsTheBestApartFromTheNewestK)
{
    const std::string dir = freshDir("ckpt_best");
    const double valLoss[] = {0.50, 0.20, 0.40, 0.30, 0.35};
    for (int i = 0; i < 5; ++i)
        saveCheckpoint(dir, 2, (i + 1) * 10, i + 1, payload('a'), valLoss[i]);
    saveCheckpoint(dir, 2, 55, 5, payload('s')); // a mid-epoch checkpoint: no validation loss
    const auto files = listCheckpoints(dir);
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0].step, 55);
    EXPECT_EQ(files[1].step, 50);
    EXPECT_EQ(files[2].step, 20); // the best, older than the newest two
    EXPECT_EQ(bestCheckpoint(dir), files[2].path);
    EXPECT_EQ(verifyCheckpoint(files[2].path).check, CheckpointCheck::Ok);

    saveCheckpoint(dir, 2, 60, 6, payload('b'), 0.10); // a new best: the old one goes
    const auto after = listCheckpoints(dir);
    ASSERT_EQ(after.size(), 2u);
    EXPECT_EQ(after[0].step, 60);
    EXPECT_EQ(after[1].step, 55);
    EXPECT_EQ(bestCheckpoint(dir), after[0].path);
}

TEST(CheckpointStore, FallsBackToThePreviousCheckpoint)
{
    const std::string dir = freshDir("ckpt_fallback");
    saveCheckpoint(dir, 5, 10, 0, payload('a'));
    saveCheckpoint(dir, 5, 20, 0, payload('b'));
    const std::string newest = saveCheckpoint(dir, 5, 30, 0, payload('c')).path;
    fs::resize_file(newest, 10); // torn

    Recorder recorder;
    auto choice = chooseResume("auto", dir, std::ref(recorder));
    ASSERT_TRUE(choice);
    EXPECT_EQ(fs::path(choice->path).filename(), "checkpoint-0000000020.pt");
    EXPECT_EQ(choice->skipped, 1);
    EXPECT_EQ(recorder.restored, payload('b'));

    // Verifies but does not restore (e.g. unpicklable): the next one is tried. The save pruned the torn 30.
    saveCheckpoint(dir, 5, 40, 0, payload('X'));
    EXPECT_FALSE(fs::exists(newest));
    choice = chooseResume("auto", dir, std::ref(recorder));
    ASSERT_TRUE(choice);
    EXPECT_EQ(fs::path(choice->path).filename(), "checkpoint-0000000020.pt");
    EXPECT_EQ(choice->skipped, 1);
}

TEST(CheckpointStore, ResumeModes)
{
    const std::string dir = freshDir("ckpt_modes");
    Recorder recorder;
    EXPECT_FALSE(chooseResume("auto", dir, std::ref(recorder))) << "empty dir: a fresh start";
    EXPECT_FALSE(chooseResume("auto", "", std::ref(recorder)));
    const std::string path = saveCheckpoint(dir, 5, 10, 0, payload('a')).path;
    EXPECT_FALSE(chooseResume("none", dir, std::ref(recorder)));
    EXPECT_TRUE(chooseResume(path, "", std::ref(recorder)));
    EXPECT_TRUE(chooseResume(dir, "", std::ref(recorder))) << "a directory is searched like auto";
    EXPECT_THROW(chooseResume(dir + "/missing.pt", "", std::ref(recorder)), std::runtime_error);

    fs::resize_file(path, 5);
    EXPECT_THROW(chooseResume("auto", dir, std::ref(recorder)), std::runtime_error) << "all unusable is an error";
    EXPECT_THROW(chooseResume(path, "", std::ref(recorder)), std::runtime_error);
}
