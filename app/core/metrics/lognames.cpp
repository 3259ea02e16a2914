#include "core/metrics/lognames.h"

#include "core/metrics/scalarmapping.h"

#include <utility>

namespace torchdeck {

namespace {

using L = LogRole;

// Normalized names (normalizedScalarName) the logger files' table does not have, or means otherwise in a log.
constexpr std::pair<QStringView, LogRole> kLogNames[] = {
    {u"epoch", L::Epoch},
    {u"train_epoch", L::Epoch},
    {u"epoch_idx", L::Epoch},
    {u"train", L::Epoch}, // timm: "Train: 3 [ 100/391 ( 26%)]"
    {u"step", L::Step},
    {u"global_step", L::Step},
    {u"global", L::Step}, // torchdeck-train: "(global 105)"
    {u"iter", L::Step},
    {u"iteration", L::Step},
    {u"num_updates", L::Step},
    {u"update", L::Step},
    {u"updates", L::Step},
    {u"batch", L::Batch},
    {u"batch_idx", L::Batch},
    {u"test", L::Batch}, // "Test: [ 10/79]"
    {u"valid", L::Batch},
    {u"validation", L::Batch},
    {u"eval", L::Batch},
    {u"eval_loss", L::ValLoss},
    {u"test_loss", L::ValLoss},
    {u"loss_test", L::ValLoss},
    {u"loss_eval", L::ValLoss},
    {u"dev_loss", L::ValLoss},
    {u"accuracy", L::Accuracy},
    {u"acc", L::Accuracy},
    {u"acc@1", L::Accuracy},
    {u"acc1", L::Accuracy},
    {u"top1", L::Accuracy},
    {u"top_1", L::Accuracy},
    {u"prec@1", L::Accuracy},
    {u"eval_accuracy", L::ValAccuracy},
    {u"eval_acc", L::ValAccuracy},
    {u"test_accuracy", L::ValAccuracy},
    {u"test_acc", L::ValAccuracy},
    {u"val_acc1", L::ValAccuracy},
    {u"val_top1", L::ValAccuracy},
    {u"time", L::Seconds},
    {u"epoch_time", L::Seconds},
    {u"seconds", L::Seconds},
    {u"duration", L::Seconds},
    {u"training_time", L::Seconds},
    {u"train_time", L::Seconds},
    {u"validation_time", L::Seconds},
    {u"val_time", L::Seconds},
    {u"samples_per_s", L::SamplesPerSecond},
    {u"samples_per_sec", L::SamplesPerSecond},
    {u"samples_per_second", L::SamplesPerSecond},
    {u"v_num", L::Ignore},
    {u"eta", L::Ignore},
    {u"skipped", L::Ignore},
    {u"train_runtime", L::Summary},
    {u"train_samples_per_second", L::Summary},
    {u"train_steps_per_second", L::Summary},
    {u"total_flos", L::Summary},
};

QString withoutAveraging(QString name)
{
    for (QStringView prefix : {u"average_", u"avg_", u"mean_", u"running_"}) {
        if (name.startsWith(prefix) && name.size() > prefix.size())
            return name.mid(prefix.size());
    }
    return name;
}

LogRole fromScalarRole(ScalarRole role)
{
    switch (role) {
    case ScalarRole::StepLoss:
        return L::Loss;
    case ScalarRole::EpochTrainLoss:
        return L::EpochLoss;
    case ScalarRole::ValLoss:
        return L::ValLoss;
    case ScalarRole::ValAccuracy:
        return L::ValAccuracy;
    case ScalarRole::LearningRate:
        return L::Lr;
    case ScalarRole::Epoch:
        return L::Epoch;
    case ScalarRole::Step:
        return L::Step;
    case ScalarRole::Extra:
    case ScalarRole::EpochExtra:
        break;
    }
    return L::Extra;
}

} // namespace

LogRole logRole(QStringView name, bool validation)
{
    const QString normalized = withoutAveraging(normalizedScalarName(name));
    LogRole role = L::Extra;
    bool found = false;
    for (const auto &[known, r] : kLogNames) {
        if (normalized == known) {
            role = r;
            found = true;
            break;
        }
    }
    if (!found)
        role = fromScalarRole(scalarRole(normalized));
    if (validation && (role == L::Loss || role == L::EpochLoss))
        return L::ValLoss;
    if (validation && role == L::Accuracy)
        return L::ValAccuracy;
    return role;
}

} // namespace torchdeck
