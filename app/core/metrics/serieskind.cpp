#include "core/metrics/serieskind.h"

namespace torchdeck {

QString seriesName(SeriesKind kind)
{
    switch (kind) {
    case SeriesKind::TrainLoss:
    case SeriesKind::EpochTrainLoss:
        return QStringLiteral("train loss");
    case SeriesKind::LearningRate:
        return QStringLiteral("learning rate");
    case SeriesKind::Throughput:
    case SeriesKind::EpochThroughput:
        return QStringLiteral("samples/s");
    case SeriesKind::ValLoss:
        return QStringLiteral("val loss");
    case SeriesKind::ValAccuracy:
        return QStringLiteral("val accuracy");
    case SeriesKind::EpochSeconds:
        return QStringLiteral("epoch seconds");
    }
    return {};
}

QString seriesXName(SeriesKind kind)
{
    return isByEpoch(kind) ? QStringLiteral("epoch") : QStringLiteral("step");
}

} // namespace torchdeck
