#pragma once

#include "core/schedulerkind.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace torchdeck {

// Where a job's first node is reached from the login node, for a tunnel to a port on it: the scheduler names
// the node, and the address is the one the scheduler itself uses (Slurm's NodeAddr), since node names need not
// resolve (the sandbox's nodes are all 127.0.0.1).

// The first host of a job's node list as the scheduler prints it: Slurm's hostlist ("gpu[03-05,9]" is gpu03,
// "rack[1-2]-n[7-8]" is rack1-n7, "a1,b2" is a1), PBS's hosts ("n1,n2" from exec_host), a local run's
// login node ("localhost"). Empty when there is none yet ("", "(null)", "None assigned").
QString firstNode(SchedulerKind kind, const QString &nodes);

// The command that asks the scheduler for a node's address (argv, the caller quotes it); empty when the
// node's name is its address (PBS, local runs).
QStringList nodeAddressCommand(SchedulerKind kind, const QString &node);

// NodeAddr of `scontrol --oneliner show node NODE`; empty when the output has none.
QString parseSlurmNodeAddress(const QByteArray &output);

} // namespace torchdeck
