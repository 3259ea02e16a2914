#include "core/store/runrecord.h"

#include "core/coretr.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace torchdeck {

JobSpec::FromJson RunRecord::spec() const
{
    return JobSpec::fromJson(QJsonDocument::fromJson(specJson.toUtf8()).object());
}

QString tagError(const QString &tag)
{
    static const QRegularExpression word(QStringLiteral("^[\\w.+:@/-]{1,64}$"),
                                         QRegularExpression::UseUnicodePropertiesOption);
    if (word.match(tag).hasMatch())
        return {};
    return core::Tr::tr("'%1' cannot be a tag: a word of letters, digits and . _ - + : @ /, at most 64 long").arg(tag);
}

QStringList editedTags(QStringList tags, const QStringList &added, const QStringList &removed)
{
    tags.append(added);
    tags.removeIf([&removed](const QString &tag) { return removed.contains(tag); });
    tags.sort();
    tags.removeDuplicates();
    return tags;
}

} // namespace torchdeck
