#include "data/dataset_spec.h"
#include "data/idx_file.h"
#include "test_files.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace torchdeck::trainer;
using namespace torchdeck::trainer::test;

namespace {

const std::string kRealDir = kDefaultFashionMnistDir;

std::vector<std::uint8_t> images(std::uint32_t n)
{
    std::vector<std::uint8_t> payload(n * 2 * 3);
    for (std::size_t i = 0; i < payload.size(); ++i)
        payload[i] = static_cast<std::uint8_t>(i);
    return payload;
}

class IdxFile : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = freshDir("idx_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    }
    std::string path(const std::string &name) const { return dir_ + "/" + name; }
    std::string dir_;
};

} // namespace

TEST_F(IdxFile, ReadsRawAndGzip)
{
    const auto bytes = idxBytes({4, 2, 3}, images(4));
    writeBytes(path("raw"), bytes);
    writeGzip(path("gz"), bytes);
    for (const char *name : {"raw", "gz"}) {
        const IdxResult r = readIdxFile(path(name), 3);
        ASSERT_EQ(r.error, "") << name;
        EXPECT_EQ(r.array.dims, (std::vector<std::uint32_t>{4, 2, 3}));
        EXPECT_EQ(r.array.data, images(4));
    }
}

TEST_F(IdxFile, LimitReadsAPrefix)
{
    writeGzip(path("gz"), idxBytes({4, 2, 3}, images(4)));
    const IdxResult r = readIdxFile(path("gz"), 3, 2);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.array.dims[0], 2u);
    EXPECT_EQ(r.array.data.size(), 12u);
}

struct Expectation {
    const char *file;
    const char *message;
};

TEST_F(IdxFile, ClearErrorsForBadFiles)
{
    const auto good = idxBytes({4, 2, 3}, images(4));
    writeBytes(path("empty"), {});
    writeBytes(path("short-header"), {0, 0, 8});
    writeBytes(path("wrong-magic"), {'P', 'K', 3, 4, 0, 0, 0, 1, 0});
    writeBytes(path("wrong-type"), {0, 0, 0x0D, 3, 0, 0, 0, 0});
    writeBytes(path("wrong-rank"), idxBytes({4}, {1, 2, 3, 4}));
    writeBytes(path("truncated-dims"), std::vector<std::uint8_t>(good.begin(), good.begin() + 9));
    writeBytes(path("truncated-data"), std::vector<std::uint8_t>(good.begin(), good.end() - 5));
    auto trailing = good;
    trailing.push_back(42);
    writeBytes(path("trailing"), trailing);
    writeBytes(path("huge-dims"), idxBytes({0xFFFFFFFF, 0xFFFF, 0xFFFF}, {}));
    writeGzip(path("gz-truncated-data"), std::vector<std::uint8_t>(good.begin(), good.end() - 5));
    // A gzip stream cut in the middle: valid magic, then the stream just stops.
    writeGzip(path("whole.gz"), idxBytes({400, 2, 3}, images(400)));
    auto gz = readBytes(path("whole.gz"));
    writeBytes(path("gz-cut"), std::vector<std::uint8_t>(gz.begin(), gz.begin() + static_cast<long>(gz.size() / 2)));
    // A corrupt deflate stream: flip bytes after the gzip header.
    auto corrupt = gz;
    for (std::size_t i = 12; i < 40 && i < corrupt.size(); ++i)
        corrupt[i] ^= 0xA5;
    writeBytes(path("gz-corrupt"), corrupt);

    const Expectation cases[] = {
        {"missing", "cannot open"},
        {"empty", "too short for an IDX header"},
        {"short-header", "too short for an IDX header"},
        {"wrong-magic", "wrong magic number"},
        {"wrong-type", "unsupported IDX element type 13"},
        {"wrong-rank", "has 1 dimensions, expected 3"},
        {"truncated-dims", "truncated IDX header"},
        {"truncated-data", "truncated: header promises 4 items"},
        {"trailing", "trailing data"},
        {"huge-dims", "implausible IDX dimensions"},
        {"gz-truncated-data", "truncated: header promises 4 items"},
        {"gz-cut", "truncated"},
        {"gz-corrupt", "gzip"},
    };
    for (const Expectation &c : cases) {
        const IdxResult r = readIdxFile(path(c.file), 3);
        EXPECT_NE(r.error.find(c.message), std::string::npos) << c.file << ": got '" << r.error << "'";
        EXPECT_NE(r.error.find(path(c.file)), std::string::npos) << "the message names the file: " << r.error;
    }
}

TEST(IdxReal, FashionMnistFirstLabels)
{
    const std::string labels = kRealDir + "/train-labels-idx1-ubyte.gz";
    if (!std::filesystem::exists(labels))
        GTEST_SKIP() << "dataset-fashion-mnist not installed";
    const IdxResult r = readIdxFile(labels, 1);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.array.dims[0], 60000u);
    EXPECT_EQ(std::vector<std::uint8_t>(r.array.data.begin(), r.array.data.begin() + 10),
              (std::vector<std::uint8_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
    const IdxResult img = readIdxFile(kRealDir + "/t10k-images-idx3-ubyte.gz", 3, 7);
    ASSERT_EQ(img.error, "");
    EXPECT_EQ(img.array.dims, (std::vector<std::uint32_t>{7, 28, 28}));
}

TEST(DatasetSpec, Parses)
{
    EXPECT_EQ(parseDatasetSpec("fashion-mnist").spec.dir, kRealDir);
    EXPECT_EQ(parseDatasetSpec("fashion-mnist:/d").spec.dir, "/d");
    EXPECT_EQ(parseDatasetSpec("mnist:/m").spec.kind, DatasetSpec::Kind::Mnist);
    EXPECT_EQ(parseDatasetSpec("synthetic").spec.syntheticSize, kDefaultSyntheticSize);
    EXPECT_EQ(parseDatasetSpec("synthetic:300").spec.syntheticSize, 300);
    for (const char *bad : {"mnist", "mnist:", "synthetic:0", "synthetic:many", "cifar10", "fashion-mnist:"})
        EXPECT_NE(parseDatasetSpec(bad).error, "") << bad;
}
