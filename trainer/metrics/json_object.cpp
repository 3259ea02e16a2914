#include "metrics/json_object.h"

#include <cmath>
#include <cstdio>

namespace torchdeck::trainer {

std::string jsonQuote(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

std::string jsonNumber(double value)
{
    if (!std::isfinite(value))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", value);
    return buf;
}

std::string jsonArray(const std::vector<std::string> &jsonValues)
{
    std::string out = "[";
    for (std::size_t i = 0; i < jsonValues.size(); ++i) {
        if (i > 0)
            out += ',';
        out += jsonValues[i];
    }
    return out + "]";
}

void JsonObject::key(std::string_view name)
{
    if (!body_.empty())
        body_ += ',';
    body_ += jsonQuote(name);
    body_ += ':';
}

JsonObject &JsonObject::add(std::string_view name, std::string_view value)
{
    key(name);
    body_ += jsonQuote(value);
    return *this;
}

JsonObject &JsonObject::add(std::string_view name, double value)
{
    key(name);
    body_ += jsonNumber(value);
    return *this;
}

JsonObject &JsonObject::add(std::string_view name, std::int64_t value)
{
    key(name);
    body_ += std::to_string(value);
    return *this;
}

JsonObject &JsonObject::add(std::string_view name, std::uint64_t value)
{
    key(name);
    body_ += std::to_string(value);
    return *this;
}

JsonObject &JsonObject::add(std::string_view name, bool value)
{
    key(name);
    body_ += value ? "true" : "false";
    return *this;
}

JsonObject &JsonObject::addFixed(std::string_view name, double value, int decimals)
{
    key(name);
    if (!std::isfinite(value)) {
        body_ += "null";
        return *this;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    body_ += buf;
    return *this;
}

JsonObject &JsonObject::addNull(std::string_view name)
{
    key(name);
    body_ += "null";
    return *this;
}

JsonObject &JsonObject::addRaw(std::string_view name, std::string_view json)
{
    key(name);
    body_ += json;
    return *this;
}

} // namespace torchdeck::trainer
