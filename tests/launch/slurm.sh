#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# slurm.sh BOOT_TEST [--nodes K] CASE...   (ctest: launch.slurm, launch.slurm_tree)
# A private one-node Slurm cluster on this host: munged, slurmctld and
# slurmd started here as root on a configuration in a temporary directory
# (own ports, state, sockets, key and TmpFS, where the pmix plugin makes
# directories named only by job and step, which another private cluster
# running at the same time would also use; nothing under /etc is touched), the
# cases run with srun, then everything is stopped. Exits 77 ("skipped")
# when not root, without Slurm/munge, or when the daemons do not come up.
# CASEs:
#   MPI:NP   srun --mpi=MPI -n NP boot_test basic NP NAME must pass
#            (MPI pmi2: weft's PMI-1 client against Slurm's pmi2 plugin;
#             pmix: weft's PMIx client)
#   none:NP  srun --mpi=none -n NP must fail, naming srun --mpi=pmi2
#   MPI:NP:PROGRAM  srun --mpi=MPI -n NP PROGRAM (a shmem program) must pass
#   alloc:NP:OSHRUN salloc -n NP OSHRUN -v -n NP boot_test: oshrun inside an
#            allocation hands the job to srun --mpi=pmi2
#   tree:MPI:NP:DIST:COMMAND  (with --nodes K) srun --mpi=MPI -N K -n NP
#            --ntasks-per-node=NP/K --distribution=DIST COMMAND (words)
#            must pass
#   treealloc:NP:COMMAND  (with --nodes K) salloc -N K -n NP COMMAND (words;
#            e.g. Open MPI's mpirun, which starts its daemons with srun)
#            must pass
# --nodes K (K >= 2, even): K Slurm nodes w1..wK on this host, one slurmd
# each (Slurm's multiple-slurmd mode: own port, spool and TmpFS), under a
# two-level switch tree (topology/tree): leaf0 holds the first half of
# the nodes, leaf1 the rest, and one core switch joins them, so each task
# gets SLURM_TOPOLOGY_ADDR=core.leafS.wI.
# slurm.sh BOOT_TEST --exec COMMAND...  runs COMMAND inside the cluster
# instead (SLURM_CONF exported; scripts/measure-startup uses it), with
# WEFT_SLURM_CPUS CPUs claimed for the node (default 8).
set -u
boot=$1
shift
nodes=1
if [[ ${1:-} == --nodes ]]; then
  nodes=$2
  shift 2
fi
skip() { echo "skipped: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root to run slurmctld/slurmd"
for t in munged slurmctld slurmd srun scontrol sinfo timeout; do
  command -v $t >/dev/null || skip "$t not installed (scripts/install-deps installs slurm-wlm, munge)"
done

tmp=$(mktemp -d /tmp/weft-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  # Jobs end first (their slurmstepd with them), then the daemons we started.
  if [[ -n ${SLURM_CONF:-} ]]; then
    scancel --quiet --full -u root 2>/dev/null
    for _ in $(seq 30); do [[ -z $(squeue -h 2>/dev/null) ]] && break; sleep 0.1; done
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for _ in $(seq 20); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

host=$(hostname -s)
# A run of nodes+2 free ports (slurmctld, slurmd(s)): starting from one
# derived from our pid alone, two clusters started a pid apart (ctest -j)
# took overlapping ports and one of them never came up.
port_in_use() {
  local hex
  hex=$(printf '%04X' "$1")
  grep -qE "^ *[0-9]+: [0-9A-F]+:$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
span=$((nodes + 2))
port=$(( 20000 + ($$ * 97) % 20000 ))
for _ in $(seq 200); do
  free=1
  for ((q = port; q < port + span; q++)); do port_in_use $q && { free=0; break; }; done
  [[ $free == 1 ]] && break
  port=$(( 20000 + (port - 20000 + span + 7) % 20000 ))
done
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool"
names=$host
((nodes > 1)) && names=$(seq -f "w%g" -s ' ' 1 "$nodes")
for n in $names; do mkdir -p "$tmp/spool/$n" "$tmp/tmpfs/$n"; done
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/key"
sock=$tmp/munge/sock
munged --force --key-file="$tmp/munge/key" --socket="$sock" --pid-file="$tmp/munge/pid" \
  --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" --num-threads=2 ||
  skip "munged does not start: $(tail -3 "$tmp/munge/log" 2>/dev/null)"
for _ in $(seq 50); do [[ -s $tmp/munge/pid ]] && break; sleep 0.1; done
pids+=("$(cat "$tmp/munge/pid")")

cat >"$tmp/slurm.conf" <<EOF
ClusterName=weft$$
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.%n.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
PlugStackConfig=$tmp/plugstack.conf
TmpFS=$tmp/tmpfs/%n
SlurmdParameters=config_overrides
EOF
if ((nodes > 1)); then
  # One slurmd per node on its own port (and TmpFS per node: the pmix
  # plugin's directories there are named by job and step only).
  half=$((nodes / 2))
  cat >>"$tmp/slurm.conf" <<EOF
TopologyPlugin=topology/tree
NodeName=w[1-$nodes] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 2))-$((port + 1 + nodes)) CPUs=${WEFT_SLURM_CPUS:-4} State=UNKNOWN
PartitionName=weft Nodes=w[1-$nodes] Default=YES MaxTime=5 State=UP
EOF
  cat >"$tmp/topology.conf" <<EOF
SwitchName=leaf0 Nodes=w[1-$half]
SwitchName=leaf1 Nodes=w[$((half + 1))-$nodes]
SwitchName=core Switches=leaf[0-1]
EOF
else
  cat >>"$tmp/slurm.conf" <<EOF
NodeName=$host CPUs=${WEFT_SLURM_CPUS:-8} State=UNKNOWN
PartitionName=weft Nodes=$host Default=YES MaxTime=5 State=UP
EOF
fi
: >"$tmp/plugstack.conf"
export SLURM_CONF=$tmp/slurm.conf
unset SLURM_JOB_ID SLURM_STEP_ID PMI_FD PMI_PORT PMI_RANK PMI_SIZE PMIX_NAMESPACE PMIX_RANK
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
if ((nodes > 1)); then
  for n in $names; do
    slurmd -D -N "$n" -f "$SLURM_CONF" >"$tmp/slurmd.$n.out" 2>&1 &
    pids+=($!)
  done
else
  slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
  pids+=($!)
fi
up=0
for _ in $(seq 100); do
  if [[ $(sinfo -h -N -o %t 2>/dev/null | grep -c idle) == "$nodes" ]]; then up=1; break; fi
  sleep 0.2
done
if [[ $up != 1 ]]; then
  tail -5 "$tmp/slurmctld.log" "$tmp"/slurmd.*.log 2>/dev/null
  ((nodes > 1)) && skip "the private Slurm cluster of $nodes nodes on this host (slurmd's" \
    "multiple-slurmd mode) did not come up"
  skip "the private Slurm cluster did not come up"
fi

if [[ ${1:-} == --exec ]]; then
  shift
  "$@"
  exit $?
fi

fail=0
for c in "$@"; do
  IFS=: read -r mpi np prog <<<"$c"
  out=$tmp/out
  start=$(date +%s.%N)
  # The node claims 8 CPUs (config_overrides): 4 tasks fit on 2 real ones.
  if [[ $mpi == treealloc ]]; then
    read -r -a cmd <<<"$prog"
    timeout -k 2 60 salloc -N $nodes -n $np -t 1 "${cmd[@]}" >"$out" 2>&1
  elif [[ $mpi == tree ]]; then
    IFS=: read -r mpi np dist prog <<<"${c#tree:}"
    read -r -a cmd <<<"$prog"
    # As many tasks on each node (Slurm's block placement would fill the
    # first nodes' CPUs first), dealt in blocks or round robin.
    timeout -k 2 30 srun --mpi=$mpi -N $nodes -n $np --ntasks-per-node=$(((np + nodes - 1) / nodes)) \
      --distribution=$dist -t 1 \
      env WEFT_SPIN_YIELD=64 "${cmd[@]}" >"$out" 2>&1
  elif [[ $mpi == alloc ]]; then
    timeout -k 2 30 salloc -n $np -t 1 "$prog" -v -n $np "$boot" basic $np pmi1 >"$out" 2>&1
  elif [[ -n $prog ]]; then
    timeout -k 2 30 srun --mpi=$mpi -n $np -t 1 env WEFT_SPIN_YIELD=64 "$prog" >"$out" 2>&1
  else
    timeout -k 2 30 srun --mpi=$mpi -n $np -t 1 "$boot" basic $np \
      $([[ $mpi == pmi2 ]] && echo pmi1 || echo $mpi) >"$out" 2>&1
  fi
  rc=$?
  if [[ $c == tree:* || $c == treealloc:* ]]; then
    ok=$(( rc == 0 ))
  elif [[ $mpi == alloc ]]; then
    ok=$(( rc == 0 ))
    grep -q "handing the job to .*srun --mpi=pmi2 -n $np" "$out" || ok=0
    grep -q "boot_test basic: $np PE(s) via pmi1 OK" "$out" || ok=0
  elif [[ -n $prog ]]; then
    ok=$(( rc == 0 ))
  elif [[ $mpi == none ]]; then
    ok=$(( rc != 0 && rc != 124 ))
    grep -q "srun started $np tasks but gave them no PMI interface" "$out" || ok=0
    grep -q "srun --mpi=pmi2" "$out" || ok=0
    [[ $(grep -c "srun started" "$out") == 1 ]] || ok=0 # said once, not per task
  else
    ok=$(( rc == 0 ))
    grep -q "boot_test basic: $np PE(s) via" "$out" || ok=0
  fi
  what="srun --mpi=$mpi -n $np ${prog##*/}"
  [[ $c == treealloc:* ]] && what="salloc -N $nodes -n $np ${cmd[0]##*/} ... ${prog##*/}"
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  if [[ $ok == 1 ]]; then
    echo "PASS $what (${secs}s)"
    [[ $c == tree* ]] && grep -v "debug:" "$out" | sed 's/^/  | /' | head -5
  else
    echo "FAIL $what (status $rc, ${secs}s):"
    sed 's/^/  | /' "$out" | head -30
    fail=1
  fi
done
exit $fail
