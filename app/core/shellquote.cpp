#include "core/shellquote.h"

namespace torchdeck {

namespace {
bool isSafeChar(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') ||
           QStringView(u"@%+=:,./_-").contains(c);
}
} // namespace

QString shellQuote(const QString &word)
{
    if (!word.isEmpty() && std::all_of(word.begin(), word.end(), isSafeChar))
        return word;
    // Inside single quotes nothing is special but the quote itself, which is closed, escaped and reopened.
    QString quoted = word;
    quoted.replace(u'\'', QStringLiteral("'\\''"));
    return u'\'' + quoted + u'\'';
}

QString shellJoin(const QStringList &argv)
{
    QStringList quoted;
    quoted.reserve(argv.size());
    for (const QString &word : argv)
        quoted.append(shellQuote(word));
    return quoted.join(u' ');
}

} // namespace torchdeck
