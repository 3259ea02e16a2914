#include "cli/options.h"

#include "cli/value_parsers.h"
#include "metrics/json_object.h"

#include <csignal>
#include <functional>
#include <map>
#include <vector>

namespace torchdeck::trainer {

namespace {

std::vector<std::string> splitColons(const std::string &text)
{
    std::vector<std::string> parts(1);
    for (const char c : text) {
        if (c == ':')
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

using Setter = std::function<std::string(Options &, const std::string &)>;

struct Flag {
    Setter set;
    bool takesValue = true;
};

std::string oneOf(std::string &target, const std::string &value, std::initializer_list<const char *> allowed)
{
    std::string list;
    for (const char *candidate : allowed) {
        if (value == candidate) {
            target = value;
            return {};
        }
        list += list.empty() ? "" : ", ";
        list += candidate;
    }
    return "'" + value + "' is not one of: " + list;
}

const std::map<std::string, Flag> &flags()
{
    static const std::map<std::string, Flag> table = {
        {"--model", {[](Options &o, const std::string &v) {
             return oneOf(o.model, v, {"ae", "toy", "toy-split", "resnet18", "resnet50"});
         }}},
        {"--data", {[](Options &o, const std::string &v) {
             if (v.empty())
                 return std::string("empty data specification");
             o.data = v;
             return std::string();
         }}},
        {"--epochs", {[](Options &o, const std::string &v) { return parseInt(v, 1, 1000000, o.epochs); }}},
        {"--batch-size", {[](Options &o, const std::string &v) { return parseInt(v, 1, 1 << 24, o.batchSize); }}},
        {"--lr", {[](Options &o, const std::string &v) { return parsePositiveDouble(v, o.lr); }}},
        {"--optimizer", {[](Options &o, const std::string &v) {
             return oneOf(o.optimizer, v, {"adam", "sgd"});
         }}},
        {"--momentum", {[](Options &o, const std::string &v) { return parseDoubleInRange(v, 0.0, 1.0, o.momentum); }}},
        {"--weight-decay",
         {[](Options &o, const std::string &v) { return parseDoubleInRange(v, 0.0, 1e3, o.weightDecay); }}},
        {"--seed", {[](Options &o, const std::string &v) { return parseUInt64(v, o.seed); }}},
        {"--metrics", {[](Options &o, const std::string &v) { return nonEmpty(v, o.metricsPath); }}},
        {"--checkpoint-dir", {[](Options &o, const std::string &v) { return nonEmpty(v, o.checkpointDir); }}},
        {"--checkpoint-every", {[](Options &o, const std::string &v) {
             if (v == "epoch") {
                 o.checkpointEverySteps = 0;
                 return std::string();
             }
             const std::string err = parseInt(v, 1, 1 << 30, o.checkpointEverySteps);
             return err.empty() ? err : "expected 'epoch' or a number of steps: " + err;
         }}},
        {"--keep", {[](Options &o, const std::string &v) { return parseInt(v, 1, 1000000, o.keep); }}},
        {"--resume", {[](Options &o, const std::string &v) { return nonEmpty(v, o.resume); }}},
        {"--backend", {[](Options &o, const std::string &v) {
             return oneOf(o.backend, v, {"auto", "gloo", "nccl", "shm"});
         }}},
        {"--device", {[](Options &o, const std::string &v) {
             return oneOf(o.device, v, {"auto", "cpu", "cuda"});
         }}},
        {"--amp", {[](Options &o, const std::string &v) {
             return oneOf(o.amp, v, {"none", "bf16"});
         }}},
        {"--cuda-graphs", {[](Options &o, const std::string &v) {
             return oneOf(o.cudaGraphs, v, {"auto", "on", "off"});
         }}},
        {"--channels-last",
         {[](Options &o, const std::string &) {
              o.channelsLast = true;
              return std::string();
          },
          false}},
        {"--deterministic",
         {[](Options &o, const std::string &) {
              o.deterministic = true;
              return std::string();
          },
          false}},
        {"--threads", {[](Options &o, const std::string &v) { return parseInt(v, 0, 4096, o.threads); }}},
        {"--nproc-per-node", {[](Options &o, const std::string &v) { return parseInt(v, 1, 4096, o.nprocPerNode); }}},
        {"--limit", {[](Options &o, const std::string &v) { return parseInt64(v, 0, INT64_MAX, o.limit); }}},
        {"--log-every", {[](Options &o, const std::string &v) { return parseInt(v, 1, 1 << 30, o.logEvery); }}},
        {"--bucket-mb",
         {[](Options &o, const std::string &v) { return parseDoubleInRange(v, 1e-6, 1e6, o.bucketMb); }}},
        {"--timeout", {[](Options &o, const std::string &v) { return parseInt(v, 1, 1 << 24, o.timeoutSeconds); }}},
        {"--stop-signals", {[](Options &o, const std::string &v) { return parseSignalList(v, o.stopSignals); }}},
        {"--signal-at-step",
         {[](Options &o, const std::string &v) { return parseInt64(v, 0, INT64_MAX, o.signalAtStep); }}},
        {"--sleep-in-step", {[](Options &o, const std::string &v) {
             const auto parts = splitColons(v);
             if (parts.size() != 3)
                 return std::string("expected STEP:RANK:SECONDS, got '") + v + "'";
             std::string e = parseInt64(parts[0], 1, INT64_MAX, o.hangAtStep);
             if (e.empty())
                 e = parseInt(parts[1], 0, 1 << 24, o.hangRank);
             if (e.empty())
                 e = parseDoubleInRange(parts[2], 0, 86400, o.hangSeconds);
             return e;
         }}},
        {"--slow-rank", {[](Options &o, const std::string &v) {
             const auto parts = splitColons(v);
             if (parts.size() != 2)
                 return std::string("expected RANK:SECONDS, got '") + v + "'";
             std::string e = parseInt(parts[0], 0, 1 << 24, o.slowRank);
             if (e.empty())
                 e = parseDoubleInRange(parts[1], 0, 3600, o.slowSeconds);
             return e;
         }}},
        {"--help",
         {[](Options &o, const std::string &) {
              o.help = true;
              return std::string();
          },
          false}},
        {"--version",
         {[](Options &o, const std::string &) {
              o.version = true;
              return std::string();
          },
          false}},
    };
    return table;
}

} // namespace

ParseResult parseOptions(const std::vector<std::string> &args)
{
    ParseResult result;
    result.options.stopSignals = {SIGUSR1, SIGUSR2, SIGTERM};
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::string value;
        bool inlineValue = false;
        if (name == "-h")
            name = "--help";
        if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            inlineValue = true;
        }
        const auto it = flags().find(name);
        if (it == flags().end()) {
            result.error = "unknown option '" + args[i] + "' (see --help)";
            return result;
        }
        const Flag &flag = it->second;
        if (!flag.takesValue && inlineValue) {
            result.error = name + " takes no value";
            return result;
        }
        if (flag.takesValue && !inlineValue) {
            if (i + 1 >= args.size()) {
                result.error = name + " needs a value";
                return result;
            }
            value = args[++i];
        }
        if (const std::string err = flag.set(result.options, value); !err.empty()) {
            result.error = name + ": " + err;
            return result;
        }
    }
    return result;
}

std::string optionsToJson(const Options &o)
{
    std::vector<std::string> signals;
    for (const int s : o.stopSignals)
        signals.push_back(jsonQuote(signalName(s)));
    JsonObject json;
    json.add("model", o.model)
        .add("data", o.data)
        .add("epochs", o.epochs)
        .add("batch_size", o.batchSize)
        .add("lr", o.lr)
        .add("optimizer", o.optimizer)
        .add("momentum", o.momentum)
        .add("weight_decay", o.weightDecay)
        .add("seed", static_cast<std::uint64_t>(o.seed))
        .add("checkpoint_every",
             o.checkpointEverySteps == 0 ? std::string("epoch") : std::to_string(o.checkpointEverySteps))
        .add("keep", o.keep)
        .add("backend", o.backend)
        .add("device", o.device)
        .add("amp", o.amp)
        .add("channels_last", o.channelsLast)
        .add("deterministic", o.deterministic)
        .add("cuda_graphs", o.cudaGraphs)
        .add("threads", o.threads)
        .add("limit", static_cast<std::int64_t>(o.limit))
        .add("log_every", o.logEvery)
        .add("bucket_mb", o.bucketMb)
        .addRaw("stop_signals", jsonArray(signals));
    return json.str();
}

} // namespace torchdeck::trainer
