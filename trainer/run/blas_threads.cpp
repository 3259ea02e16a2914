#include "run/blas_threads.h"

#include <cstdlib>
#include <dlfcn.h>

namespace torchdeck::trainer {

const char *setBlasThreads(int threads)
{
    if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr || std::getenv("BLIS_NUM_THREADS") != nullptr)
        return nullptr; // the user's explicit choice wins
    using SetThreads = void (*)(int);
    struct Library {
        const char *name;
        const char *symbol;
    };
    constexpr Library kLibraries[] = {{"OpenBLAS", "openblas_set_num_threads"}, {"BLIS", "bli_thread_set_num_threads"}};
    for (const Library &library : kLibraries) {
        if (void *symbol = dlsym(RTLD_DEFAULT, library.symbol); symbol != nullptr) {
            reinterpret_cast<SetThreads>(symbol)(threads);
            return library.name;
        }
    }
    return nullptr;
}

} // namespace torchdeck::trainer
