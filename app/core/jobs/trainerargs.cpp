#include "core/jobs/trainerargs.h"

#include "cli/options.h"
#include "core/coretr.h"

#include <string>
#include <vector>

namespace torchdeck {

QString bundledTrainerArgsProblem(const QStringList &args)
{
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
