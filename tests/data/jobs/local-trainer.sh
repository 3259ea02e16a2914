#!/bin/bash
# torchdeck job mnist-local: 1 node(s) x 2 rank(s), run directly.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.

set -euo pipefail
td_job_id=${TORCHDECK_LOCAL_JOB_ID:-$$} # the id the dashboard knows this run by: its runner's PID
cd -- /home/ada/.local/state/torchdeck/runs/mnist-local
exec >>/home/ada/.local/state/torchdeck/runs/mnist-local/mnist-local-"$td_job_id".out 2>&1

# On USR1 the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s USR1 "$td_pid" 2>/dev/null || true; fi; }
trap td_forward USR1
/home/ada/.local/share/torchdeck/trainer/3f9a1c/bin/torchdeck-train --nproc-per-node=2 --model ae --epochs 10 --metrics metrics.jsonl --checkpoint-dir checkpoints --resume auto &
td_pid=$!
td_status=0
while :; do
  wait "$td_pid" && td_status=0 || td_status=$?
  kill -0 "$td_pid" 2>/dev/null || break # still running: the signal cut the wait short
done
exit "$td_status"
