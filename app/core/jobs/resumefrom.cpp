#include "core/jobs/resumefrom.h"

namespace torchdeck {

namespace {
const QString latestWord = QStringLiteral("auto");
const QString scratchWord = QStringLiteral("none");
} // namespace

ResumeFrom ResumeFrom::fromText(const QString &text)
{
    if (text.isEmpty())
        return {};
    if (text == latestWord)
        return latest();
    if (text == scratchWord)
        return scratch();
    return checkpoint(text);
}

QString ResumeFrom::text() const
{
    switch (m_kind) {
    case Kind::AsSpecified:
        return {};
    case Kind::Latest:
        return latestWord;
    case Kind::Scratch:
        return scratchWord;
    case Kind::Checkpoint:
        return m_checkpoint;
    }
    return {};
}

} // namespace torchdeck
