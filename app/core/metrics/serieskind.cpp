#include "core/metrics/serieskind.h"

#include "core/coretr.h"

namespace torchdeck {

QString seriesName(SeriesKind kind)
{
    switch (kind) {
    case SeriesKind::TrainLoss:
    case SeriesKind::EpochTrainLoss:
        return core::Tr::tr("train loss");
    case SeriesKind::LearningRate:
        return core::Tr::tr("learning rate");
    case SeriesKind::Throughput:
    case SeriesKind::EpochThroughput:
        return core::Tr::tr("samples/s");
    case SeriesKind::ValLoss:
        return core::Tr::tr("val loss");
    case SeriesKind::ValAccuracy:
        return core::Tr::tr("val accuracy");
    case SeriesKind::EpochSeconds:
        return core::Tr::tr("epoch seconds");
    }
    return {};
}

} // namespace torchdeck
