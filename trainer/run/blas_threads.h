#pragma once

namespace torchdeck::trainer {

// at::set_num_threads sets OpenMP's (and MKL's) thread count but not OpenBLAS's, which LibTorch's generic
// BLAS resolves to on Debian: its pthread build would start a thread per core in every rank. This sets
// the BLAS library's own count when it has one (OpenBLAS, BLIS); returns the library's name or nullptr.
const char *setBlasThreads(int threads);

} // namespace torchdeck::trainer
