// libFuzzer: the trainer's checkpoint files as it finds them on resume (the checkpoint and its sidecar, torn
// or corrupt or foreign): listing, the cheap completeness check, the full check and the best by validation
// loss. The input is split into the sidecar's text and the checkpoint's bytes. No crash, no sanitizer report.
#include "checkpoint/checkpoint_files.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace torchdeck::trainer;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fs::path dir = fs::temp_directory_path() / ("torchdeck-fuzz-" + std::to_string(getpid()));
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::size_t split = size > 0 ? data[0] % (size + 1) : 0;
    const std::string checkpoint = (dir / "checkpoint-0000000042.pt").string();
    std::ofstream(sidecarPath(checkpoint), std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char *>(data), std::streamsize(split));
    std::ofstream(checkpoint, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char *>(data + split), std::streamsize(size - split));
    listCheckpoints(dir.string());
    isCompleteCheckpoint(checkpoint);
    verifyCheckpoint(checkpoint);
    bestCheckpoint(dir.string());
    return 0;
}
