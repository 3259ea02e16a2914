#include "data/compressed_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <zlib.h>

namespace torchdeck::trainer {

namespace {
constexpr std::size_t kInputChunk = 1 << 16;
constexpr int kGzipAutoDetectWindow = 15 + 32;
} // namespace

struct CompressedFile::Inflater {
    z_stream stream{};
    bool initialised = false;
    ~Inflater()
    {
        if (initialised)
            inflateEnd(&stream);
    }
};

CompressedFile::CompressedFile(const std::string &path)
    : path_(path)
{
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) {
        error_ = "cannot open '" + path + "': " + std::strerror(errno);
        return;
    }
    unsigned char magic[2] = {0, 0};
    const std::size_t n = std::fread(magic, 1, 2, file_);
    std::rewind(file_);
    gzipped_ = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!gzipped_)
        return;
    inflater_ = std::make_unique<Inflater>();
    if (inflateInit2(&inflater_->stream, kGzipAutoDetectWindow) != Z_OK) {
        error_ = "cannot initialise zlib for '" + path + "'";
        return;
    }
    inflater_->initialised = true;
    input_.resize(kInputChunk);
}

CompressedFile::~CompressedFile()
{
    if (file_ != nullptr)
        std::fclose(file_);
}

std::size_t CompressedFile::read(std::uint8_t *out, std::size_t size)
{
    if (!ok() || size == 0)
        return 0;
    return gzipped_ ? readGzip(out, size) : readRaw(out, size);
}

std::size_t CompressedFile::readRaw(std::uint8_t *out, std::size_t size)
{
    const std::size_t n = std::fread(out, 1, size, file_);
    if (n < size && std::ferror(file_))
        error_ = "read error in '" + path_ + "': " + std::strerror(errno);
    return n;
}

std::size_t CompressedFile::readGzip(std::uint8_t *out, std::size_t size)
{
    z_stream &zs = inflater_->stream;
    std::size_t produced = 0;
    while (produced < size && !streamEnded_) {
        if (zs.avail_in == 0) {
            const std::size_t n = std::fread(input_.data(), 1, input_.size(), file_);
            if (n == 0) {
                error_ =
                    std::ferror(file_) ? "read error in '" + path_ + "'" : "truncated gzip stream in '" + path_ + "'";
                return produced;
            }
            zs.next_in = input_.data();
            zs.avail_in = static_cast<uInt>(n);
        }
        const std::size_t want = std::min<std::size_t>(size - produced, 1u << 30);
        zs.next_out = out + produced;
        zs.avail_out = static_cast<uInt>(want);
        const int rc = inflate(&zs, Z_NO_FLUSH);
        produced += want - zs.avail_out;
        if (rc == Z_STREAM_END) {
            streamEnded_ = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            error_ = "corrupt gzip data in '" + path_ + "'" + (zs.msg != nullptr ? std::string(": ") + zs.msg : "");
            return produced;
        }
    }
    return produced;
}

} // namespace torchdeck::trainer
