#include "test_files.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <zlib.h>

namespace torchdeck::trainer::test {

std::string freshDir(const std::string &name)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(TORCHDECK_TEST_WORK_DIR) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

void writeBytes(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

void writeGzip(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    gzFile f = gzopen(path.c_str(), "wb");
    if (f == nullptr)
        throw std::runtime_error("cannot gzopen " + path);
    if (!bytes.empty())
        gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
}

std::vector<std::uint8_t> readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::uint8_t> idxBytes(const std::vector<std::uint32_t> &dims, const std::vector<std::uint8_t> &payload)
{
    std::vector<std::uint8_t> out = {0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
    for (const std::uint32_t d : dims) {
        out.push_back(static_cast<std::uint8_t>(d >> 24));
        out.push_back(static_cast<std::uint8_t>(d >> 16));
        out.push_back(static_cast<std::uint8_t>(d >> 8));
        out.push_back(static_cast<std::uint8_t>(d));
    }
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

} // namespace torchdeck::trainer::test
