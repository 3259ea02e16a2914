#include "core/metrics/scalarmapping.h"

#include <cmath>
#include <utility>

namespace torchdeck {

namespace {

using R = ScalarRole;

// Normalized names; see the header.
constexpr std::pair<QStringView, ScalarRole> kRoles[] = {
    {u"loss", R::StepLoss},
    {u"train_loss", R::StepLoss},
    {u"loss_train", R::StepLoss},
    {u"training_loss", R::StepLoss},
    {u"train_loss_step", R::StepLoss},
    {u"train_loss_epoch", R::EpochTrainLoss},
    {u"loss_epoch", R::EpochTrainLoss},
    {u"epoch_loss", R::EpochTrainLoss},
    {u"val_loss", R::ValLoss},
    {u"loss_val", R::ValLoss},
    {u"valid_loss", R::ValLoss},
    {u"validation_loss", R::ValLoss},
    {u"val_loss_epoch", R::ValLoss},
    {u"loss_validation", R::ValLoss},
    {u"accuracy", R::ValAccuracy},
    {u"acc", R::ValAccuracy},
    {u"val_acc", R::ValAccuracy},
    {u"val_accuracy", R::ValAccuracy},
    {u"acc_val", R::ValAccuracy},
    {u"accuracy_val", R::ValAccuracy},
    {u"valid_acc", R::ValAccuracy},
    {u"validation_accuracy", R::ValAccuracy},
    {u"val_acc_epoch", R::ValAccuracy},
    {u"lr", R::LearningRate},
    {u"learning_rate", R::LearningRate},
    {u"epoch", R::Epoch},
    {u"step", R::Step},
};

// A position logged as a number (Lightning writes 3, or 3.0 after a rewrite).
qint64 countOf(double value)
{
    return std::isfinite(value) && value >= 0 && value < 9e15 ? std::llround(value) : kNoCount;
}

} // namespace

QString normalizedScalarName(QStringView name)
{
    QString normalized = name.toString().toLower();
    for (QChar &c : normalized) {
        if (c == u'/' || c == u'-' || c == u' ' || c == u'.')
            c = u'_';
    }
    return normalized;
}

ScalarRole scalarRole(QStringView name)
{
    const QString normalized = normalizedScalarName(name);
    for (const auto &[known, role] : kRoles) {
        if (normalized == known)
            return role;
    }
    if (normalized.startsWith(u"lr_"))
        return R::LearningRate;
    if (normalized.endsWith(u"_epoch"))
        return R::EpochExtra;
    return R::Extra;
}

bool isEpochRole(ScalarRole role)
{
    return role == R::EpochTrainLoss || role == R::ValLoss || role == R::ValAccuracy || role == R::EpochExtra;
}

void ScalarGroup::add(ScalarRole role, const QString &name, double value)
{
    epochValues = epochValues || isEpochRole(role);
    switch (role) {
    case R::StepLoss:
        loss = value;
        return;
    case R::EpochTrainLoss:
        epochLoss = value;
        return;
    case R::ValLoss:
        valLoss = value;
        return;
    case R::ValAccuracy:
        valAccuracy = value;
        return;
    case R::LearningRate:
        lr = value;
        return;
    case R::Epoch:
        epoch = countOf(value);
        return;
    case R::Step:
        step = countOf(value);
        return;
    case R::Extra:
    case R::EpochExtra:
        for (NamedValue &extra : extras) {
            if (extra.name == name) {
                extra.value = value; // logged twice at one step: the later value
                return;
            }
        }
        extras.append({name, value});
        return;
    }
}

void ScalarGroup::appendEvents(const MetricEvent &position, qint64 epochOfEpochEvent, qint64 stepOfEpochEvent,
                               QList<MetricEvent> *events) const
{
    if (MetricEvent::has(loss) || MetricEvent::has(lr) || (!epochValues && !extras.isEmpty())) {
        MetricEvent e = position;
        e.kind = MetricEventKind::Step;
        e.loss = loss;
        e.lr = lr;
        if (!epochValues)
            e.extras = extras;
        events->append(e);
    }
    if (epochValues) {
        MetricEvent e = position;
        e.kind = MetricEventKind::Epoch;
        e.epoch = epochOfEpochEvent;
        e.step = stepOfEpochEvent;
        e.loss = epochLoss;
        e.valLoss = valLoss;
        e.valAccuracy = valAccuracy;
        e.extras = extras;
        events->append(e);
    }
}

QList<MetricEvent> tensorBoardEvents(const QList<TfScalar> &scalars, int epochBase)
{
    QList<MetricEvent> events;
    for (qsizetype first = 0, end = 0; first < scalars.size(); first = end) {
        ScalarGroup group;
        MetricEvent position;
        for (end = first; end < scalars.size() && scalars[end].step == scalars[first].step; ++end) {
            group.add(scalarRole(scalars[end].tag), scalars[end].tag, scalars[end].value);
            position.time = scalars[end].wallTime;
        }
        const qint64 step = scalars[first].step >= 0 ? scalars[first].step : kNoCount;
        position.step = MetricEvent::has(group.step) ? group.step : step;
        if (MetricEvent::has(group.epoch))
            group.epoch += 1 - epochBase;
        position.epoch = group.epoch;
        if (MetricEvent::has(group.epoch))
            group.appendEvents(position, group.epoch, position.step, &events);
        else
            group.appendEvents(position, step, kNoCount, &events); // add_scalar("val_loss", v, epoch)
    }
    return events;
}

} // namespace torchdeck
