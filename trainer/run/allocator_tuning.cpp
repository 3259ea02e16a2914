#include "run/allocator_tuning.h"

#include <cstdlib>
#include <initializer_list>
#include <malloc.h>

namespace torchdeck::trainer {

void tuneAllocator()
{
#ifdef __GLIBC__
    constexpr int kMmapThreshold = 64 << 20;
    constexpr int kTrimThreshold = 256 << 20;
    constexpr int kTopPad = 64 << 20;
    for (const char *variable : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"}) {
        if (std::getenv(variable) != nullptr)
            return;
    }
    mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
    mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
    mallopt(M_TOP_PAD, kTopPad);
#endif
}

} // namespace torchdeck::trainer
