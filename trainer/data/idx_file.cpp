#include "data/idx_file.h"

#include "data/compressed_file.h"

namespace torchdeck::trainer {

namespace {

constexpr std::uint8_t kTypeUnsignedByte = 0x08;
constexpr std::uint64_t kMaxPayload = std::uint64_t{1} << 36; // 64 GiB: anything larger is a broken header

std::uint32_t bigEndian32(const std::uint8_t *p)
{
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

IdxResult fail(const std::string &path, const std::string &what)
{
    IdxResult r;
    r.error = path + ": " + what;
    return r;
}

} // namespace

IdxResult readIdxFile(const std::string &path, std::size_t expectedRank, std::uint64_t maxItems)
{
    CompressedFile file(path);
    if (!file.ok())
        return fail(path, file.error());
    std::uint8_t magic[4];
    if (file.read(magic, 4) != 4)
        return fail(path, file.ok() ? "too short for an IDX header (truncated)" : file.error());
    if (magic[0] != 0 || magic[1] != 0)
        return fail(path, "wrong magic number: not an IDX file");
    if (magic[2] != kTypeUnsignedByte)
        return fail(path, "unsupported IDX element type " + std::to_string(magic[2]) + " (expected unsigned byte)");
    if (magic[3] != expectedRank)
        return fail(path, "has " + std::to_string(magic[3]) + " dimensions, expected " + std::to_string(expectedRank));

    IdxResult result;
    std::vector<std::uint8_t> header(4 * expectedRank);
    if (file.read(header.data(), header.size()) != header.size())
        return fail(path, file.ok() ? "truncated IDX header" : file.error());
    std::uint64_t itemBytes = 1;
    for (std::size_t i = 0; i < expectedRank; ++i) {
        result.array.dims.push_back(bigEndian32(&header[4 * i]));
        if (i > 0)
            itemBytes *= result.array.dims.back();
    }
    const std::uint64_t items = result.array.dims[0];
    if (itemBytes == 0 || itemBytes > kMaxPayload || items > kMaxPayload / itemBytes)
        return fail(path, "implausible IDX dimensions");
    const std::uint64_t wanted = maxItems > 0 && maxItems < items ? maxItems : items;
    const std::uint64_t bytes = wanted * itemBytes;
    result.array.data.resize(bytes);
    const std::size_t got = file.read(result.array.data.data(), bytes);
    if (got != bytes) {
        if (!file.ok() && file.error().find("truncated") == std::string::npos)
            return fail(path, file.error());
        return fail(path, "truncated: header promises " + std::to_string(items) + " items, data ends after " +
                              std::to_string(got / itemBytes) + (file.gzipped() ? " (gzip stream cut short)" : ""));
    }
    if (wanted == items) {
        std::uint8_t extra = 0;
        if (file.read(&extra, 1) != 0)
            return fail(path, "trailing data after " + std::to_string(items) + " items");
        if (!file.ok())
            return fail(path, file.error());
    }
    result.array.dims[0] = static_cast<std::uint32_t>(wanted);
    return result;
}

} // namespace torchdeck::trainer
