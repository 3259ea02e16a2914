#!/usr/bin/env bash
# Issue 42: a cluster's accounting as the agent reads it (sacctmgr: the user's associations and QOS), on a sandbox of
# its own with MariaDB and slurmdbd (scripts/sandbox --accounting: accounts lab and brief, brief's default QOS quick
# allows 10 minutes a job, enforced by Slurm too). Usage: accounting_test.sh start|stop|limits.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "$1" in
    start) exec "$TORCHDECK_SOURCE_DIR/scripts/sandbox" start --accounting ;;
    stop) exec "$TORCHDECK_SOURCE_DIR/scripts/sandbox" stop ;;
esac
# shellcheck source=term_helpers.sh
source "$here/term_helpers.sh"

case_limits() {
    local out rc run
    td profile torchdeck-sandbox --slurm-history accounting --work-dir "$home/work" >/dev/null
    out=$(td check torchdeck-sandbox) || fail "check: $out"
    grep -qF "✓ Accounts: lab (QOS normal); brief (QOS normal, quick); root (QOS normal)" <<<"$out" || fail "accounts: $out"
    # An account the user has no association with, and more than brief's QOS allows: refused before anything is
    # sent, naming what refuses it and where that was read.
    rc=0; out=$(td submit torchdeck-sandbox --name not-mine --account nosuch --launch local --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "an account not the user's (output: $out)"
    grep -qF "You have no association with account 'nosuch' (sacctmgr, read " <<<"$out" || fail "message: $out"
    grep -qF ": yours are lab, brief, root." <<<"$out" || fail "the user's accounts: $out"
    rc=0; out=$(td submit torchdeck-sandbox --name too-long --account brief --time 00:20:00 --launch local \
                --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "20 minutes under QOS quick (output: $out)"
    grep -qF "QOS 'quick' allows at most 00:10:00 of wall time per job (sacctmgr, read " <<<"$out" || fail "message: $out"
    expect_eq "$(squeue -h --states=all -o %j | grep -cE '^(not-mine|too-long)-' || true)" 0 "jobs sent for them"
    # Slurm enforces the same limit: the refusal was the site's to make.
    out=$(sbatch --account brief --time 00:20:00 --wrap true 2>&1) && fail "sbatch took a job QOS quick forbids: $out"
    # Within it, the job runs, charged to brief.
    run=$(td submit torchdeck-sandbox --name brief-job --account brief --time 00:05:00 --launch local --command true \
          --json | json_field run)
    expect_eq "$(wait_final "$run")" completed "the run within brief's limits"
    expect_eq "$(squeue -h --states=all -o '%j %a' | awk -v job="brief-job-${run:0:8}-a0" '$1 == job { print $2 }')" brief \
        "the account the job was charged to"
}

"case_$1"
remove_home
