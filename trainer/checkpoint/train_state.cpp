#include "checkpoint/train_state.h"

#include "checkpoint/torch_pickle.h"
#include "optim/flat_optimizer.h"
#include "optim/flat_parameters.h"

#include <ATen/CPUGeneratorImpl.h>
#include <map>
#include <mutex>
#include <torch/serialize.h>
#include <torch/torch.h>

namespace torchdeck::trainer {

namespace {

constexpr const char *kFormat = "torchdeck-checkpoint/1";

using GenericDict = c10::impl::GenericDict;

GenericDict newDict()
{
    return GenericDict(c10::StringType::get(), c10::AnyType::get());
}

at::Tensor cpuCopy(const at::Tensor &t)
{
    return t.detach().to(torch::kCPU).clone();
}

std::map<std::string, at::Tensor> modelTensors(torch::nn::Module &model)
{
    std::map<std::string, at::Tensor> named;
    for (const auto &p : model.named_parameters())
        named[p.key()] = p.value();
    for (const auto &b : model.named_buffers())
        named[b.key()] = b.value();
    return named;
}

at::Tensor &defaultGeneratorState(at::Tensor &out, bool set)
{
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    if (set)
        gen.set_state(out);
    else
        out = gen.get_state();
    return out;
}

const c10::IValue *find(const GenericDict &dict, const std::string &key)
{
    const auto it = dict.find(key);
    return it == dict.end() ? nullptr : &it->value();
}

} // namespace

std::vector<char> serializeTrainState(const TrainStateRefs &state, const Progress &progress,
                                      const std::string &configJson)
{
    torch::NoGradGuard noGrad;
    GenericDict model = newDict();
    for (const auto &[name, tensor] : modelTensors(state.model))
        model.insert(name, cpuCopy(tensor));

    GenericDict optimizer = newDict();
    optimizer.insert("name", std::string(state.optimizer.name()));
    optimizer.insert("step", state.optimizer.stepCount());
    optimizer.insert("lr", state.optimizer.lr());
    for (const OptimizerStateBuffer &buffer : state.optimizer.state()) {
        GenericDict perParam = newDict();
        for (const ParamSlot &slot : state.params.slots()) {
            const at::Tensor flat = buffer.perGroup[slot.group];
            perParam.insert(slot.name, cpuCopy(flat.narrow(0, slot.offset, slot.numel).view(slot.param.sizes())));
        }
        optimizer.insert(buffer.name, perParam);
    }

    GenericDict prog = newDict();
    prog.insert("epoch", progress.epoch);
    prog.insert("epoch_step", progress.epochStep);
    prog.insert("global_step", progress.globalStep);
    prog.insert("epoch_loss_sum", progress.epochLossSum);
    prog.insert("epoch_loss_count", progress.epochLossCount);
    prog.insert("batch_size", static_cast<std::int64_t>(progress.batchSize));
    prog.insert("world_size", static_cast<std::int64_t>(progress.worldSize));

    at::Tensor rng;
    defaultGeneratorState(rng, false);

    GenericDict top = newDict();
    top.insert("format", std::string(kFormat));
    top.insert("model", model);
    top.insert("optimizer", optimizer);
    top.insert("progress", prog);
    top.insert("rng", rng);
    top.insert("config", configJson);
    return pickleForTorchLoad(c10::IValue(top));
}

std::string restoreTrainState(const std::vector<char> &bytes, const TrainStateRefs &state, Progress &progress)
{
    GenericDict top = newDict();
    try {
        const c10::IValue loaded = torch::pickle_load(bytes);
        if (!loaded.isGenericDict())
            return "not a checkpoint dict";
        top = loaded.toGenericDict();
    } catch (const std::exception &e) {
        return std::string("unreadable: ") + e.what();
    }
    const c10::IValue *format = find(top, "format");
    if (format == nullptr || !format->isString() || format->toStringRef() != kFormat)
        return "not a torchdeck checkpoint (format key missing or different)";
    try {
        const GenericDict model = top.at("model").toGenericDict();
        const GenericDict optimizer = top.at("optimizer").toGenericDict();
        const GenericDict prog = top.at("progress").toGenericDict();
        // Validate everything before touching the model.
        auto targets = modelTensors(state.model);
        if (model.size() != targets.size())
            return "model has " + std::to_string(model.size()) + " tensors, expected " + std::to_string(targets.size());
        for (const auto &[name, tensor] : targets) {
            const c10::IValue *saved = find(model, name);
            if (saved == nullptr || !saved->isTensor())
                return "model tensor '" + name + "' missing";
            if (saved->toTensor().sizes() != tensor.sizes())
                return "model tensor '" + name + "' has a different shape";
        }
        if (optimizer.at("name").toStringRef() != state.optimizer.name())
            return "optimizer is '" + optimizer.at("name").toStringRef() + "', this run uses '" +
                   state.optimizer.name() + "'";
        for (const OptimizerStateBuffer &buffer : state.optimizer.state()) {
            const c10::IValue *perParam = find(optimizer, buffer.name);
            if (perParam == nullptr || !perParam->isGenericDict())
                return "optimizer state '" + buffer.name + "' missing";
            for (const ParamSlot &slot : state.params.slots()) {
                const c10::IValue *t = find(perParam->toGenericDict(), slot.name);
                if (t == nullptr || !t->isTensor() || t->toTensor().numel() != slot.numel)
                    return "optimizer state '" + buffer.name + "' of '" + slot.name + "' missing or misshapen";
            }
        }
        // Restore.
        torch::NoGradGuard noGrad;
        for (auto &[name, tensor] : targets)
            tensor.copy_(model.at(name).toTensor());
        for (OptimizerStateBuffer &buffer : state.optimizer.state()) {
            const GenericDict perParam = optimizer.at(buffer.name).toGenericDict();
            for (const ParamSlot &slot : state.params.slots())
                buffer.perGroup[slot.group]
                    .narrow(0, slot.offset, slot.numel)
                    .copy_(perParam.at(slot.name).toTensor().reshape({-1}));
        }
        state.optimizer.setStepCount(optimizer.at("step").toInt());
        progress.epoch = prog.at("epoch").toInt();
        progress.epochStep = prog.at("epoch_step").toInt();
        progress.globalStep = prog.at("global_step").toInt();
        progress.epochLossSum = prog.at("epoch_loss_sum").toDouble();
        progress.epochLossCount = prog.at("epoch_loss_count").toInt();
        progress.batchSize = static_cast<int>(prog.at("batch_size").toInt());
        progress.worldSize = static_cast<int>(prog.at("world_size").toInt());
        if (const c10::IValue *rng = find(top, "rng"); rng != nullptr && rng->isTensor()) {
            at::Tensor rngState = rng->toTensor();
            defaultGeneratorState(rngState, true);
        }
    } catch (const std::exception &e) {
        return std::string("malformed checkpoint: ") + e.what();
    }
    return {};
}

std::vector<std::pair<std::string, std::vector<float>>> checkpointModelTensors(const std::vector<char> &bytes)
{
    std::vector<std::pair<std::string, std::vector<float>>> out;
    const GenericDict model = torch::pickle_load(bytes).toGenericDict().at("model").toGenericDict();
    for (const auto &entry : model) {
        const at::Tensor t = entry.value().toTensor().to(torch::kFloat32).contiguous();
        out.emplace_back(entry.key().toStringRef(),
                         std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel()));
    }
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    return out;
}

} // namespace torchdeck::trainer
