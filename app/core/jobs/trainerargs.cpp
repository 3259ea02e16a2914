#include "core/jobs/trainerargs.h"

#include "cli/options.h"
#include "core/coretr.h"

#include <clocale>
#include <locale.h>
#include <string>
#include <vector>

namespace torchdeck {

namespace {
// The trainer reads numbers in the C locale (it sets none); this process may have the user's (Qt sets it), where
// strtod wants "0,001": for this thread, while the parser runs, numbers are read as the trainer reads them.
class CNumbers {
public:
    CNumbers()
        : m_c(newlocale(LC_NUMERIC_MASK, "C", static_cast<locale_t>(nullptr)))
        , m_before(m_c ? uselocale(m_c) : static_cast<locale_t>(nullptr))
    {
    }
    ~CNumbers()
    {
        if (m_c) {
            uselocale(m_before);
            freelocale(m_c);
        }
    }
    CNumbers(const CNumbers &) = delete;
    CNumbers &operator=(const CNumbers &) = delete;

private:
    locale_t m_c;
    locale_t m_before;
};
} // namespace

QString bundledTrainerArgsProblem(const QStringList &args)
{
    const CNumbers numbers;
    std::vector<std::string> words;
    words.reserve(size_t(args.size()));
    for (const QString &arg : args)
        words.push_back(arg.toStdString());
    const trainer::ParseResult parsed = trainer::parseOptions(words);
    if (!parsed.error.empty())
        return QString::fromStdString(parsed.error);
    if (parsed.options.help || parsed.options.version)
        return core::Tr::tr("--help and --version print and train nothing");
    return {};
}

} // namespace torchdeck
