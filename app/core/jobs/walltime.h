#pragma once

#include <QString>
#include <optional>

namespace torchdeck {

// Parses a wall time in any of Slurm's forms: "MM" (minutes), "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM",
// "D-HH:MM:SS". Fields after the first must be below 60 (hours below 24 after a day); the first field is
// unbounded, so "90" and "48:00:00" are accepted. Returns seconds, or nothing if malformed or zero.
std::optional<qint64> parseWallTime(const QString &text);

// "D-HH:MM:SS" with the day part only when there is one, as sbatch --time and squeue print it.
QString formatSlurmWallTime(qint64 seconds);

// "HH:MM:SS" with hours unbounded ("48:00:00"), as PBS -l walltime expects.
QString formatPbsWallTime(qint64 seconds);

} // namespace torchdeck
