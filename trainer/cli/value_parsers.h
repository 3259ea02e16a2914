#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchdeck::trainer {

// Each returns an empty string on success and a message naming the bad value otherwise; the target is
// only written on success.
std::string parseInt(const std::string &text, int min, int max, int &out);
std::string parseInt64(const std::string &text, std::int64_t min, std::int64_t max, std::int64_t &out);
std::string parseUInt64(const std::string &text, std::uint64_t &out);
std::string parsePositiveDouble(const std::string &text, double &out);
std::string parseDoubleInRange(const std::string &text, double min, double max, double &out);
std::string nonEmpty(const std::string &text, std::string &out);
// "USR1,SIGUSR2,TERM" (also "none" for an empty list).
std::string parseSignalList(const std::string &text, std::vector<int> &out);

} // namespace torchdeck::trainer
