#include "checkpoint/torch_pickle.h"

#include <caffe2/serialize/inline_container.h>
#include <string>
#include <torch/csrc/jit/serialization/pickler.h>

namespace torchdeck::trainer {

std::vector<char> pickleForTorchLoad(const c10::IValue &value)
{
    std::vector<char> pickle;
    torch::jit::Pickler pickler(
        [&](const char *bytes, std::size_t size) { pickle.insert(pickle.end(), bytes, bytes + size); },
        /*tensor_table=*/nullptr, /*type_renamer=*/nullptr, /*memoized_class_types=*/nullptr,
        /*get_tensor_id=*/nullptr, /*tag_aggregates=*/false);
    pickler.protocol();
    pickler.pushIValue(value);
    pickler.stop();

    // The archive torch.save writes: the tensors' storages as records data/0, data/1... then data.pkl.
    std::vector<char> archive;
    archive.reserve(pickle.size());
    caffe2::serialize::PyTorchStreamWriter writer([&](const void *data, std::size_t size) {
        const auto *bytes = static_cast<const char *>(data);
        archive.insert(archive.end(), bytes, bytes + size);
        return size;
    });
    std::size_t index = 0;
    for (const at::Tensor &tensor : pickler.tensorData()) {
        const torch::jit::WriteableTensorData storage = torch::jit::getWriteableTensorData(tensor);
        writer.writeRecord("data/" + std::to_string(index++), storage.data(), storage.sizeInBytes());
    }
    writer.writeRecord("data.pkl", pickle.data(), pickle.size());
    writer.writeEndOfFile();
    return archive;
}

} // namespace torchdeck::trainer
