#pragma once

#include <QString>
#include <QStringList>

namespace torchdeck {

// Quotes one word for a POSIX shell so that it is passed through unchanged, whatever it contains
// (spaces, quotes, $(...), backticks, newlines). The empty string becomes ''.
QString shellQuote(const QString &word);

// Quotes each word and joins them with spaces: a command line that runs exactly argv.
QString shellJoin(const QStringList &argv);

} // namespace torchdeck
