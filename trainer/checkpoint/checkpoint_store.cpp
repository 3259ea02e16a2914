#include "checkpoint/checkpoint_store.h"

#include "checkpoint/checkpoint_files.h"

#include <chrono>
#include <filesystem>
#include <stdexcept>

namespace torchdeck::trainer {

SavedCheckpoint saveCheckpoint(const std::string &dir, int keep, std::int64_t step, std::int64_t epoch,
                               const std::vector<char> &bytes, std::optional<double> valLoss)
{
    const auto start = std::chrono::steady_clock::now();
    SavedCheckpoint saved;
    saved.path = writeCheckpointFiles(dir, step, epoch, bytes, valLoss);
    saved.bytes = bytes.size();
    pruneCheckpoints(dir, keep);
    saved.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return saved;
}

namespace {

std::string joined(const std::vector<std::string> &lines)
{
    std::string text;
    for (const std::string &line : lines)
        text += "\n  " + line;
    return text;
}

std::optional<ResumeChoice> newestUsable(const std::string &dir, const RestoreFn &restore)
{
    const auto files = listCheckpoints(dir);
    if (files.empty())
        return std::nullopt;
    ResumeChoice choice;
    for (const CheckpointFile &file : files) {
        CheckpointVerdict verdict = verifyCheckpoint(file.path);
        std::string problem = verdict.problem;
        if (verdict.check == CheckpointCheck::Ok) {
            problem = restore(verdict.bytes);
            if (problem.empty()) {
                choice.path = file.path;
                choice.bytes = std::move(verdict.bytes);
                return choice;
            }
            problem = file.path + ": " + problem;
        }
        choice.problems.push_back(problem);
        ++choice.skipped;
    }
    throw std::runtime_error("none of the " + std::to_string(files.size()) + " checkpoints in '" + dir +
                             "' is usable (use --resume none to start afresh):" + joined(choice.problems));
}

} // namespace

std::optional<ResumeChoice> chooseResume(const std::string &resume, const std::string &dir, const RestoreFn &restore)
{
    if (resume == "none")
        return std::nullopt;
    if (resume == "auto")
        return dir.empty() ? std::nullopt : newestUsable(dir, restore);
    if (std::filesystem::is_directory(resume)) {
        auto choice = newestUsable(resume, restore);
        if (!choice)
            throw std::runtime_error("--resume " + resume + ": no checkpoint in that directory");
        return choice;
    }
    CheckpointVerdict verdict = verifyCheckpoint(resume);
    if (verdict.check == CheckpointCheck::Bad)
        throw std::runtime_error("--resume " + resume + ": " + verdict.problem);
    // An explicit file without its sidecar (copied alone) is accepted if it restores.
    ResumeChoice choice;
    if (verdict.check == CheckpointCheck::NoSidecar)
        choice.problems.push_back(verdict.problem);
    if (const std::string problem = restore(verdict.bytes); !problem.empty())
        throw std::runtime_error("--resume " + resume + ": " + problem);
    choice.path = resume;
    choice.bytes = std::move(verdict.bytes);
    return choice;
}

} // namespace torchdeck::trainer
