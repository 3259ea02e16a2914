#pragma once

#include "core/shellquote.h"

namespace torchdeck {

// The shell expression for a remote path that may start with "~/" or "$HOME/" (what profiles allow): the
// remote shell expands $HOME, the rest is quoted. ("~" itself is never expanded inside quotes, and SFTP does not expand
// it at all.)
inline QString remotePathExpression(const QString &path)
{
    if (path == u'~')
        return QStringLiteral("\"$HOME\"");
    if (path.startsWith(QStringLiteral("~/")))
        return QStringLiteral("\"$HOME\"/") + shellQuote(path.mid(2));
    if (path.startsWith(QStringLiteral("$HOME/")))
        return QStringLiteral("\"$HOME\"/") + shellQuote(path.mid(6));
    return shellQuote(path);
}

} // namespace torchdeck
