#pragma once

#include <ATen/core/ivalue.h>
#include <vector>

namespace torchdeck::trainer {

// `value` in torch.save's zip format, like torch::pickle_save, but with plain (untagged) dicts and
// lists: torch::pickle_save wraps every container in torch.jit._pickle.restore_type_tag, which
// torch.load refuses under weights_only=True, its default since PyTorch 2.6. torch::pickle_load reads
// both forms.
std::vector<char> pickleForTorchLoad(const c10::IValue &value);

} // namespace torchdeck::trainer
