#pragma once

namespace torchdeck::trainer {

// The whole program: options, launcher mode or one rank's training. Returns the exit code.
int trainerMain(int argc, char **argv);

} // namespace torchdeck::trainer
