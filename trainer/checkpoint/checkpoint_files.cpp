#include "checkpoint/checkpoint_files.h"

#include "metrics/json_object.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <unistd.h>
#include <zlib.h>

namespace torchdeck::trainer {

namespace fs = std::filesystem;

namespace {

constexpr const char *kPrefix = "checkpoint-";
constexpr const char *kSuffix = ".pt";
constexpr const char *kSidecarSuffix = ".json";
constexpr const char *kTempPrefix = ".tmp-";
constexpr int kStepDigits = 10;

void throwErrno(const std::string &what, const std::string &path)
{
    throw std::runtime_error(what + " '" + path + "': " + std::strerror(errno));
}

void fsyncPath(const std::string &path, int flags)
{
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0)
        throwErrno("cannot open for fsync", path);
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0)
        throwErrno("fsync failed on", path);
}

// temp file in the same directory + write + fsync + rename
void writeAtomically(const std::string &dir, const std::string &name, const char *data, std::size_t size)
{
    const std::string finalPath = (fs::path(dir) / name).string();
    const std::string tempPath = (fs::path(dir) / (kTempPrefix + name)).string();
    const int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throwErrno("cannot create", tempPath);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            throwErrno("cannot write", tempPath);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        ::close(fd);
        throwErrno("fsync failed on", tempPath);
    }
    if (::close(fd) != 0)
        throwErrno("cannot close", tempPath);
    if (std::rename(tempPath.c_str(), finalPath.c_str()) != 0)
        throwErrno("cannot rename into", finalPath);
}

bool parseStep(const std::string &name, std::int64_t &step)
{
    const std::string prefix = kPrefix;
    const std::string suffix = kSuffix;
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        return false;
    step = std::stoll(digits);
    return true;
}

// The value after "key": in our own sidecar JSON (numbers and plain strings only).
std::string sidecarField(const std::string &json, const std::string &key)
{
    const std::string needle = "\"" + key + "\":";
    const auto pos = json.find(needle);
    if (pos == std::string::npos)
        return {};
    auto start = pos + needle.size();
    auto end = json.find_first_of(",}", start);
    std::string value = json.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
    return value;
}

bool readFile(const std::string &path, std::vector<char> &out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

} // namespace

std::string checkpointFileName(std::int64_t step)
{
    char digits[32];
    std::snprintf(digits, sizeof digits, "%0*lld", kStepDigits, static_cast<long long>(step));
    return std::string(kPrefix) + digits + kSuffix;
}

std::string sidecarPath(const std::string &checkpointPath)
{
    return checkpointPath + kSidecarSuffix;
}

std::uint32_t crc32Of(const std::vector<char> &bytes)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    const auto *data = reinterpret_cast<const Bytef *>(bytes.data());
    std::size_t left = bytes.size();
    while (left > 0) {
        const auto chunk = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
        crc = crc32(crc, data, chunk);
        data += chunk;
        left -= chunk;
    }
    return static_cast<std::uint32_t>(crc);
}

std::vector<CheckpointFile> listCheckpoints(const std::string &dir)
{
    std::vector<CheckpointFile> files;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        std::int64_t step = 0;
        if (entry.is_regular_file(ec) && parseStep(entry.path().filename().string(), step))
            files.push_back({entry.path().string(), step});
    }
    std::sort(files.begin(), files.end(), [](const auto &a, const auto &b) { return a.step > b.step; });
    return files;
}

std::string writeCheckpointFiles(const std::string &dir, std::int64_t step, std::int64_t epoch,
                                 const std::vector<char> &bytes, std::optional<double> valLoss)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw std::runtime_error("cannot create checkpoint directory '" + dir + "': " + ec.message());
    const std::string name = checkpointFileName(step);
    writeAtomically(dir, name, bytes.data(), bytes.size());
    char crc[16];
    std::snprintf(crc, sizeof crc, "%08x", crc32Of(bytes));
    JsonObject sidecar;
    sidecar.add("format", "torchdeck-checkpoint")
        .add("version", 1)
        .add("file", name)
        .add("bytes", static_cast<std::uint64_t>(bytes.size()))
        .add("crc32", std::string(crc))
        .add("step", step)
        .add("epoch", epoch);
    if (valLoss && std::isfinite(*valLoss))
        sidecar.add("val_loss", *valLoss);
    const std::string text = sidecar.str() + "\n";
    writeAtomically(dir, name + kSidecarSuffix, text.data(), text.size());
    fsyncPath(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); // make the renames durable
    return (fs::path(dir) / name).string();
}

CheckpointVerdict verifyCheckpoint(const std::string &path)
{
    CheckpointVerdict v;
    if (!readFile(path, v.bytes)) {
        v.problem = "cannot read " + path;
        return v;
    }
    std::vector<char> sidecar;
    if (!readFile(sidecarPath(path), sidecar)) {
        v.check = CheckpointCheck::NoSidecar;
        v.problem = "no sidecar " + sidecarPath(path) + " (torn write?)";
        return v;
    }
    const std::string json(sidecar.begin(), sidecar.end());
    const std::string bytes = sidecarField(json, "bytes");
    const std::string crc = sidecarField(json, "crc32");
    char actualCrc[16];
    std::snprintf(actualCrc, sizeof actualCrc, "%08x", crc32Of(v.bytes));
    if (bytes != std::to_string(v.bytes.size())) {
        v.problem = path + " has " + std::to_string(v.bytes.size()) + " bytes, its sidecar says " + bytes;
    } else if (crc != actualCrc) {
        v.problem = path + " fails its CRC-32 check (" + actualCrc + " instead of " + crc + ")";
    } else {
        v.check = CheckpointCheck::Ok;
    }
    return v;
}

std::string bestCheckpoint(const std::string &dir)
{
    std::string best;
    double lowest = std::numeric_limits<double>::infinity();
    for (const CheckpointFile &file : listCheckpoints(dir)) {
        std::vector<char> sidecar;
        if (!readFile(sidecarPath(file.path), sidecar))
            continue;
        const std::string value = sidecarField(std::string(sidecar.begin(), sidecar.end()), "val_loss");
        char *end = nullptr;
        const double loss = value.empty() ? 0.0 : std::strtod(value.c_str(), &end);
        // Newest first: on a tie the newer checkpoint stays the best.
        if (!value.empty() && end != nullptr && *end == '\0' && std::isfinite(loss) && loss < lowest) {
            lowest = loss;
            best = file.path;
        }
    }
    return best;
}

bool isCompleteCheckpoint(const std::string &path)
{
    std::vector<char> sidecar;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    return !ec && readFile(sidecarPath(path), sidecar) &&
           sidecarField(std::string(sidecar.begin(), sidecar.end()), "bytes") == std::to_string(size);
}

void pruneCheckpoints(const std::string &dir, int keep)
{
    const std::string best = bestCheckpoint(dir);
    std::error_code ec;
    // Only complete checkpoints count towards the K kept: a torn one (no sidecar, or not its size) can never
    // be resumed from, and counting it would delete a sound older one in its place (as after a resume that
    // fell back past a torn checkpoint). Torn ones go.
    std::size_t kept = 0;
    for (const CheckpointFile &file : listCheckpoints(dir)) {
        if (isCompleteCheckpoint(file.path) && kept < static_cast<std::size_t>(std::max(keep, 0))) {
            ++kept;
            continue;
        }
        if (file.path == best)
            continue;
        fs::remove(sidecarPath(file.path), ec);
        fs::remove(file.path, ec);
    }
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().filename().string().rfind(kTempPrefix, 0) == 0)
            fs::remove(entry.path(), ec);
    }
}

} // namespace torchdeck::trainer
