#include "dist/hostlist.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace torchdeck::trainer {

namespace {

constexpr std::size_t kMaxHosts = 1 << 20;

bool allDigits(const std::string &text)
{
    if (text.empty())
        return false;
    for (const char c : text) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    }
    return true;
}

std::string pad(std::uint64_t value, std::size_t width)
{
    std::string digits = std::to_string(value);
    if (digits.size() < width)
        digits.insert(0, width - digits.size(), '0');
    return digits;
}

// "01-04,07" -> {"01","02","03","04","07"}
std::string expandRangeList(const std::string &ranges, std::vector<std::string> &out)
{
    std::size_t start = 0;
    while (start <= ranges.size()) {
        const std::size_t comma = std::min(ranges.find(',', start), ranges.size());
        const std::string item = ranges.substr(start, comma - start);
        const std::size_t dash = item.find('-');
        const std::string lo = item.substr(0, dash);
        const std::string hi = dash == std::string::npos ? lo : item.substr(dash + 1);
        if (!allDigits(lo) || !allDigits(hi) || lo.size() > 18 || hi.size() > 18)
            return "bad range '" + item + "' in [" + ranges + "]";
        const std::uint64_t a = std::stoull(lo);
        const std::uint64_t b = std::stoull(hi);
        if (a > b)
            return "reversed range '" + item + "' in [" + ranges + "]";
        if (b - a >= kMaxHosts || out.size() + (b - a) >= kMaxHosts)
            return "range '" + item + "' is too large";
        for (std::uint64_t v = a; v <= b; ++v)
            out.push_back(pad(v, lo.size()));
        start = comma + 1;
    }
    return {};
}

// One host pattern without top-level commas, e.g. "rack[1-2]-n[01-03]".
std::string expandPattern(const std::string &pattern, std::vector<std::string> &out)
{
    std::vector<std::string> partial = {""};
    std::size_t pos = 0;
    while (pos < pattern.size()) {
        const std::size_t open = pattern.find('[', pos);
        const std::string literal = pattern.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
        if (literal.find(']') != std::string::npos)
            return "unbalanced ']' in '" + pattern + "'";
        for (std::string &p : partial)
            p += literal;
        if (open == std::string::npos)
            break;
        const std::size_t close = pattern.find(']', open);
        if (close == std::string::npos)
            return "unbalanced '[' in '" + pattern + "'";
        const std::string inner = pattern.substr(open + 1, close - open - 1);
        if (inner.find('[') != std::string::npos)
            return "nested '[' in '" + pattern + "'";
        std::vector<std::string> values;
        if (std::string err = expandRangeList(inner, values); !err.empty())
            return err;
        if (partial.size() * values.size() > kMaxHosts)
            return "hostlist '" + pattern + "' is too large";
        std::vector<std::string> next;
        next.reserve(partial.size() * values.size());
        for (const std::string &p : partial) {
            for (const std::string &v : values)
                next.push_back(p + v);
        }
        partial = std::move(next);
        pos = close + 1;
    }
    out.insert(out.end(), partial.begin(), partial.end());
    return {};
}

} // namespace

HostlistResult expandHostlist(const std::string &list)
{
    HostlistResult result;
    if (list.empty()) {
        result.error = "empty hostlist";
        return result;
    }
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= list.size(); ++i) {
        const char c = i < list.size() ? list[i] : ',';
        if (c == '[')
            ++depth;
        else if (c == ']')
            --depth;
        if (depth < 0 || depth > 1) {
            result.error = "unbalanced brackets in hostlist '" + list + "'";
            result.hosts.clear();
            return result;
        }
        if (c == ',' && depth == 0) {
            const std::string pattern = list.substr(start, i - start);
            if (pattern.empty()) {
                result.error = "empty host name in hostlist '" + list + "'";
                result.hosts.clear();
                return result;
            }
            if (std::string err = expandPattern(pattern, result.hosts); !err.empty()) {
                result.error = err;
                result.hosts.clear();
                return result;
            }
            start = i + 1;
        }
    }
    if (depth != 0) {
        result.error = "unbalanced brackets in hostlist '" + list + "'";
        result.hosts.clear();
    }
    return result;
}

} // namespace torchdeck::trainer
