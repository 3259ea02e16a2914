#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torchdeck::trainer {

// Builds one JSON object, keys in insertion order. Doubles that are not finite become null (JSON has no
// NaN). Enough JSON for the metrics lines and checkpoint sidecars; nothing here parses JSON.
class JsonObject {
public:
    JsonObject &add(std::string_view key, std::string_view value);
    JsonObject &add(std::string_view key, const char *value) { return add(key, std::string_view(value)); }
    JsonObject &add(std::string_view key, const std::string &value) { return add(key, std::string_view(value)); }
    JsonObject &add(std::string_view key, double value);
    JsonObject &add(std::string_view key, std::int64_t value);
    JsonObject &add(std::string_view key, int value) { return add(key, static_cast<std::int64_t>(value)); }
    JsonObject &add(std::string_view key, std::uint64_t value);
    JsonObject &add(std::string_view key, bool value);
    JsonObject &add(std::string_view key, const JsonObject &value) { return addRaw(key, value.str()); }
    // A number with a fixed count of decimals (wall-clock times: seconds with milliseconds).
    JsonObject &addFixed(std::string_view key, double value, int decimals);
    JsonObject &addNull(std::string_view key);
    // `json` must already be valid JSON (an array or object built elsewhere).
    JsonObject &addRaw(std::string_view key, std::string_view json);

    std::string str() const { return "{" + body_ + "}"; }

private:
    void key(std::string_view name);
    std::string body_;
};

std::string jsonQuote(std::string_view text);
std::string jsonNumber(double value);
std::string jsonArray(const std::vector<std::string> &jsonValues);

} // namespace torchdeck::trainer
