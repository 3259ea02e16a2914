#include "core/store/runrecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace torchdeck {

JobSpec::FromJson RunRecord::spec() const
{
    return JobSpec::fromJson(QJsonDocument::fromJson(specJson.toUtf8()).object());
}

} // namespace torchdeck
