# Config writers for scripts/sandbox (sourced). Each writes one file from the variables set by the caller:
# dir (state directory), cluster (its name), user, ssh_port, ctld_port, nodes, node_ports[], cpus, gpus, munge_socket, accounting,
# db_port, dbd_port. The sandbox gathers
# no job accounting (sstat has nothing) unless TORCHDECK_SANDBOX_ACCT_GATHER names a plugin (linux), as
# scripts/capture-resource-probe --sstat asks.

free_port() { # a random free TCP port on 127.0.0.1 from 20000 up to the ephemeral range, not in "$@"
    # Below the kernel's ephemeral ports: an outgoing connection may take one of those at any moment (and
    # `ss -l` does not show it), so a daemon could fail to bind a port found free a second before.
    local port tries=0 low=32768 span
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    span=$(( low > 21000 ? low - 20000 : 10000 ))
    while (( tries++ < 200 )); do
        port=$(( 20000 + (RANDOM * 32768 + RANDOM) % span ))
        [[ " $* " == *" $port "* ]] && continue
        [[ -z "$(ss -Htln "sport = :$port" 2>/dev/null)" ]] && { echo "$port"; return 0; }
    done
    echo "sandbox: no free TCP port found on 127.0.0.1" >&2
    return 1
}

build_cache_env() { # the sshd SetEnv words that send the cluster's compiles through ccache, if installed
    command -v ccache >/dev/null || return 0
    echo " CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_DIR=$dir/ccache CCACHE_BASEDIR=$dir"
}

write_sshd_config() {
    cat >"$dir/ssh/sshd_config" <<CONF
# torchdeck sandbox sshd: loopback only, key authentication only
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $dir/ssh/host_ed25519
PidFile $dir/run/sshd.pid
AuthorizedKeysFile $dir/ssh/authorized_keys
AllowUsers $user
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
# Keys live under the user's state dir; StrictModes would refuse group-writable parents some homes have.
StrictModes no
Subsystem sftp internal-sftp
# bin/ first on the sessions' PATH: empty, but tests put wrappers there (a scheduler command that misbehaves).
# SHLVL=1: bash reads ~/.bashrc when sshd starts it as the first shell (SHLVL < 2), and this machine's user's may
# be slow (pyenv init: 0.6 s a command, which the agent then takes for a struggling scheduler and polls every 5 s);
# the sandbox is a cluster of its own, not this machine's login. PYENV_REHASH_TIMEOUT: a login shell (bash -l)
# still reads it; a lock left by a killed session must not make each later command wait its minute, and two
# sessions starting at once (an array's tasks) wait for each other's rehash rather than print pyenv's warning.
# The build cache: the suite builds the bundled trainer on this cluster several times (integration.deployment,
# term.deployed) in different work directories under $dir; with ccache they share its objects, as a cluster
# whose users set CMAKE_CXX_COMPILER_LAUNCHER would.
SetEnv SHLVL=1 SLURM_CONF=$dir/slurm/slurm.conf TORCHDECK_SANDBOX_DIR=$dir PYENV_REHASH_TIMEOUT=2 PATH=$dir/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin$(build_cache_env)
LogLevel INFO
CONF
}

write_ssh_client_config() {
    cat >"$dir/ssh/config" <<CONF
# torchdeck sandbox: written by scripts/sandbox start, included from the user's ssh config
Host $cluster
    HostName 127.0.0.1
    Port $ssh_port
    User $user
    IdentityFile $dir/ssh/client_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $dir/ssh/known_hosts
    StrictHostKeyChecking yes
# Back to every host: libssh (0.10) carries an included file's last Host into the lines after the Include, so
# without this a second sandbox's Include above the first's would hide the first from torchdeck.
Host *
CONF
    printf '[127.0.0.1]:%s %s\n' "$ssh_port" "$(cut -d' ' -f1,2 "$dir/ssh/host_ed25519.pub")" >"$dir/ssh/known_hosts"
}

write_slurm_config() {
    local spank_pbs
    spank_pbs=$(ls /usr/lib/*/slurm-wlm/spank_pbs.so 2>/dev/null | head -n1 || true)
    {
        cat <<CONF
# torchdeck sandbox Slurm: $nodes node(s) on this machine, everything under $dir
ClusterName=$cluster
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket,cred_expire=10
StateSaveLocation=$dir/slurm/state
SlurmdSpoolDir=$dir/slurm/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/slurm/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/${TORCHDECK_SANDBOX_ACCT_GATHER:-none}
$(accounting_lines)
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/slurm/jobcomp.txt
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
KillWait=5
MinJobAge=300
JobRequeue=1
SlurmdTimeout=30
CONF
        # More CPUs than the machine has: slurmd would drain its node for a low core count.
        (( cpus > $(nproc) )) && echo "SlurmdParameters=config_overrides"
        [[ -n "$spank_pbs" ]] && echo "PlugStackConfig=$dir/slurm/plugstack.conf"
        local i gres=""
        (( gpus )) && { echo "GresTypes=gpu"; gres=" Gres=gpu:$gpus"; }
        for (( i = 1; i <= nodes; i++ )); do
            echo "NodeName=node$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=${node_ports[i-1]} CPUs=$cpus RealMemory=2000$gres State=UNKNOWN"
        done
        echo "PartitionName=debug Nodes=node[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
        # A partition with a time limit, as clusters have: what the job form and submit check against.
        echo "PartitionName=short Nodes=node[1-$nodes] MaxTime=30 State=UP OverSubscribe=NO"
    } >"$dir/slurm/slurm.conf"
    write_gres_config
    write_slurmdbd_config
    # spank_pbs sets PBS_JOBID and PBS_O_WORKDIR in jobs, as a real PBS does, for the qsub path.
    [[ -n "$spank_pbs" ]] && echo "optional $spank_pbs" >"$dir/slurm/plugstack.conf"
    return 0
}

accounting_lines() { # slurm.conf's: none, or slurmdbd with associations, limits and QOS enforced
    if (( accounting )); then
        printf '%s\n' AccountingStorageType=accounting_storage/slurmdbd AccountingStorageHost=localhost \
            "AccountingStoragePort=$dbd_port" "AccountingStoragePass=$munge_socket" \
            AccountingStorageEnforce=associations,limits,qos
    else
        echo AccountingStorageType=accounting_storage/none
    fi
}

write_slurmdbd_config() {
    rm -f "$dir/slurm/slurmdbd.conf"
    (( accounting )) || return 0
    cat >"$dir/slurm/slurmdbd.conf" <<CONF
# torchdeck sandbox slurmdbd: its MariaDB on 127.0.0.1, everything under $dir
AuthType=auth/munge
AuthInfo=socket=$munge_socket
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=$user
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=slurm_acct_db
CONF
    chmod 600 "$dir/slurm/slurmdbd.conf" # slurmdbd refuses a config others can read
}

write_gres_config() { # stand-in GPUs: device files where a node's /dev/nvidiaN would be; Slurm only hands them out
    local i g files node
    rm -f "$dir/slurm/gres.conf"
    (( gpus )) || return 0
    for (( i = 1; i <= nodes; i++ )); do
        node=$dir/gpu/node$i
        rm -rf "$node" && mkdir -p "$node"
        files=()
        for (( g = 0; g < gpus; g++ )); do
            # slurmd takes only a character or block device; /dev/null's numbers open nothing real.
            mknod "$node/nvidia$g" c 1 3 2>/dev/null || die "--gpus needs to create device files (mknod, as root) in $node"
            files+=("$node/nvidia$g")
        done
        echo "NodeName=node$i Name=gpu File=$(IFS=,; echo "${files[*]}")"
    done >"$dir/slurm/gres.conf"
}

write_env_file() {
    cat >"$dir/env" <<CONF
export TORCHDECK_SANDBOX_DIR=$dir
export TORCHDECK_SANDBOX_HOST=$cluster
export TORCHDECK_SANDBOX_SSH_PORT=$ssh_port
export TORCHDECK_SANDBOX_SSH_CONFIG=$dir/ssh/config
export TORCHDECK_SANDBOX_NODES=$nodes
export TORCHDECK_SANDBOX_GPUS=$gpus
export SLURM_CONF=$dir/slurm/slurm.conf
CONF
}
