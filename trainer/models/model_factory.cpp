#include "models/model_factory.h"

#include "models/autoencoder.h"
#include "models/resnet.h"
#include "models/toy_model.h"

#include <stdexcept>

namespace torchdeck::trainer {

namespace {
constexpr std::int64_t kToyFeatures = 32;
constexpr std::int64_t kImageSide = 28;
constexpr std::int64_t kResNetSyntheticSide = 32;
constexpr std::int64_t kResNetSyntheticChannels = 3;
} // namespace

std::vector<std::int64_t> naturalInputShape(const std::string &model)
{
    if (model == "toy" || model == "toy-split")
        return {kToyFeatures};
    if (model == "resnet18" || model == "resnet50")
        return {kResNetSyntheticChannels, kResNetSyntheticSide, kResNetSyntheticSide};
    return {1, kImageSide, kImageSide};
}

bool isModelParallel(const std::string &model)
{
    return model == "toy-split";
}

std::shared_ptr<TrainableModel> makeModel(const std::string &model, const std::vector<std::int64_t> &sampleShape,
                                          std::int64_t classes)
{
    std::int64_t features = 1;
    for (const std::int64_t d : sampleShape)
        features *= d;
    if (model == "ae")
        return std::make_shared<AutoEncoder>(features);
    if (model == "toy" || model == "toy-split")
        return std::make_shared<ToyModel>(features, classes);
    if (model == "resnet18" || model == "resnet50") {
        if (sampleShape.size() != 3)
            throw std::invalid_argument(model + " needs image samples (channels x height x width)");
        const auto depth = model == "resnet18" ? ResNet::Depth::R18 : ResNet::Depth::R50;
        return std::make_shared<ResNet>(depth, sampleShape[0], classes);
    }
    throw std::invalid_argument("unknown model '" + model + "'");
}

} // namespace torchdeck::trainer
