#pragma once

#include <QString>

namespace torchdeck {

// Where an attempt of the bundled trainer starts: as its spec says (no --resume added), from the run's latest
// checkpoint, from scratch, or from one checkpoint (a path; before it is looked up, a file name or a step as
// `torchdeck checkpoints` lists them). A custom command gets TORCHDECK_RESUME=1 unless it starts from scratch.
class ResumeFrom {
public:
    enum class Kind { AsSpecified, Latest, Scratch, Checkpoint };

    ResumeFrom() = default; // as specified
    static ResumeFrom latest() { return ResumeFrom(Kind::Latest, {}); }
    static ResumeFrom scratch() { return ResumeFrom(Kind::Scratch, {}); }
    static ResumeFrom checkpoint(const QString &pathNameOrStep) { return ResumeFrom(Kind::Checkpoint, pathNameOrStep); }
    // The trainer's --resume words, which users type and stored requests keep: "auto", "none", a checkpoint;
    // empty: as specified.
    static ResumeFrom fromText(const QString &text);
    QString text() const;

    Kind kind() const { return m_kind; }
    QString checkpoint() const { return m_checkpoint; }
    bool isCheckpointPath() const { return m_kind == Kind::Checkpoint && m_checkpoint.startsWith(u'/'); }
    friend bool operator==(const ResumeFrom &a, const ResumeFrom &b)
    {
        return a.m_kind == b.m_kind && a.m_checkpoint == b.m_checkpoint;
    }
    friend bool operator!=(const ResumeFrom &a, const ResumeFrom &b) { return !(a == b); }

private:
    ResumeFrom(Kind kind, QString checkpoint)
        : m_kind(kind)
        , m_checkpoint(std::move(checkpoint))
    {
    }
    Kind m_kind = Kind::AsSpecified;
    QString m_checkpoint;
};

} // namespace torchdeck
