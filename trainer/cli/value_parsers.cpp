#include "cli/value_parsers.h"

#include "cli/options.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdlib>

namespace torchdeck::trainer {

namespace {

struct SignalEntry {
    const char *name;
    int number;
};

constexpr SignalEntry kSignals[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"INT", SIGINT},   {"HUP", SIGHUP},
    {"QUIT", SIGQUIT}, {"XCPU", SIGXCPU}, {"CONT", SIGCONT}, {"ALRM", SIGALRM},
};

template <typename T> std::string parseIntegral(const std::string &text, T min, T max, T &out)
{
    T value{};
    const char *first = text.data();
    const char *last = first + text.size();
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (text.empty() || ec == std::errc::invalid_argument || ptr != last)
        return "'" + text + "' is not an integer";
    if (ec == std::errc::result_out_of_range || value < min || value > max)
        return "'" + text + "' is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    out = value;
    return {};
}

} // namespace

std::string parseInt(const std::string &text, int min, int max, int &out)
{
    return parseIntegral<int>(text, min, max, out);
}

std::string parseInt64(const std::string &text, std::int64_t min, std::int64_t max, std::int64_t &out)
{
    return parseIntegral<std::int64_t>(text, min, max, out);
}

std::string parseUInt64(const std::string &text, std::uint64_t &out)
{
    return parseIntegral<std::uint64_t>(text, 0, UINT64_MAX, out);
}

std::string parseDoubleInRange(const std::string &text, double min, double max, double &out)
{
    if (text.empty())
        return "empty number";
    char *end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value))
        return "'" + text + "' is not a number";
    if (value < min || value > max)
        return "'" + text + "' is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    out = value;
    return {};
}

std::string parsePositiveDouble(const std::string &text, double &out)
{
    double value = 0;
    if (std::string err = parseDoubleInRange(text, 0.0, 1e9, value); !err.empty())
        return err;
    if (value <= 0.0)
        return "'" + text + "' must be greater than 0";
    out = value;
    return {};
}

std::string nonEmpty(const std::string &text, std::string &out)
{
    if (text.empty())
        return "empty value";
    out = text;
    return {};
}

std::string parseSignalList(const std::string &text, std::vector<int> &out)
{
    std::vector<int> signals;
    if (text == "none") {
        out = signals;
        return {};
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, comma - start);
        if (name.rfind("SIG", 0) == 0)
            name = name.substr(3);
        bool found = false;
        for (const SignalEntry &entry : kSignals) {
            if (name == entry.name) {
                signals.push_back(entry.number);
                found = true;
            }
        }
        if (!found)
            return "unknown signal '" + text.substr(start, comma - start) + "' (use USR1, USR2, TERM, INT, ...)";
        start = comma + 1;
    }
    out = signals;
    return {};
}

std::string signalName(int signal)
{
    for (const SignalEntry &entry : kSignals) {
        if (entry.number == signal)
            return std::string("SIG") + entry.name;
    }
    return "signal " + std::to_string(signal);
}

} // namespace torchdeck::trainer
