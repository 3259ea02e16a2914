#pragma once

#include <QString>
#include <functional>

namespace torchdeck {

// Who holds a claim on an attempt (RunStore::claimAttempt): "<host>:<pid>:<nonce>", one per process.
QString thisProcessClaimOwner();

// Whether a claim's holder is known to be gone: a process of this host that no longer runs. Its claim is taken
// over at once instead of after its lease (an agent killed after sbatch answered, started again a minute later).
// A holder on another host, or a pid that runs (perhaps reused by another program), keeps its lease.
bool claimHolderGone(const QString &owner, const QString &thisHost, const std::function<bool(qint64 pid)> &runs);
bool claimHolderGone(const QString &owner); // on this host, asking the system

} // namespace torchdeck
