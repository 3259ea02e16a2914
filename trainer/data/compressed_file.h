#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// Sequential reader of a file that may be gzip-compressed (detected by its magic bytes) or raw.
// Errors (unreadable file, corrupt or truncated gzip stream) are kept as text, never thrown.
class CompressedFile {
public:
    explicit CompressedFile(const std::string &path);
    ~CompressedFile();
    CompressedFile(const CompressedFile &) = delete;
    CompressedFile &operator=(const CompressedFile &) = delete;

    bool ok() const { return error_.empty(); }
    const std::string &error() const { return error_; }
    bool gzipped() const { return gzipped_; }

    // Reads up to `size` bytes; fewer means end of data (or an error, see ok()).
    std::size_t read(std::uint8_t *out, std::size_t size);

private:
    std::size_t readRaw(std::uint8_t *out, std::size_t size);
    std::size_t readGzip(std::uint8_t *out, std::size_t size);

    std::string path_;
    std::string error_;
    std::FILE *file_ = nullptr;
    bool gzipped_ = false;
    bool streamEnded_ = false;
    struct Inflater;
    std::unique_ptr<Inflater> inflater_;
    std::vector<std::uint8_t> input_;
};

} // namespace torchdeck::trainer
