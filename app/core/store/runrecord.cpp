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

QString annotationError(const QString &what, const QString &text, bool lines)
{
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        const bool allowed = lines && (u == u'\n' || u == u'\t');
        if ((u < 0x20 || (u >= 0x7f && u < 0xa0)) && !allowed)
            return core::Tr::tr(
                       "%1 cannot hold control characters (U+%2): they would be written to terminals as they are")
                .arg(what)
                .arg(int(u), 4, 16, QLatin1Char('0'));
    }
    return {};
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
