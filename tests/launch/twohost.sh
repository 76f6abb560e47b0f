#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# twohost.sh OSHRUN CASE...   (ctest: launch.twohost.*)
# Two hosts on one machine: two network namespaces with their own hostnames
# (unshare --uts), joined by a veth pair (10.77.N.1 and .2, named wan0 on
# both), each with a "docker-like" interface dock0 holding the same address
# (172.31.254.1) on both. mpiexec.hydra starts its proxies in each namespace through a
# launcher-exec script (what ssh would do between real hosts). Only
# namespace addresses are used; every job runs under a timeout.
# CASEs:
#   job:NP:PROGRAM[:ARGS]  a test program at NP PEs across the two hosts (tcp)
#   span:NP:PROGRAM        same, with WEFT_DEBUG: the PEs are on both hosts
#                          and talk over tcp
#   handoff:NP:PROGRAM     oshrun --host hostA,hostB hands off to Hydra
#   wrongif:NP:PROGRAM     FI_TCP_IFACE=dock0: must end within the
#                          wire-up bound with the wire-up message
# Exits 77 ("skipped") when not root or without ip/unshare/mpiexec.hydra
# or network namespaces.
set -u
oshrun=$1
shift
skip() { echo "skipped: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
for t in ip unshare mpiexec.hydra timeout; do
  command -v $t >/dev/null || skip "$t not installed"
done

tag=w$$
nsA=weft-$tag-a nsB=weft-$tag-b
hA=weft-$tag-hosta hB=weft-$tag-hostb
net=$(( $$ % 200 + 20 ))
ipA=10.77.$net.1 ipB=10.77.$net.2
tmp=$(mktemp -d /tmp/weft-twohost.XXXXXX)

cleanup() {
  for ns in $nsA $nsB; do
    pids=$(ip netns pids $ns 2>/dev/null)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null
    ip netns del $ns 2>/dev/null
    rm -rf /etc/netns/$ns
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add $nsA 2>/dev/null || skip "cannot create network namespaces (ip netns add)"
ip netns add $nsB || skip "cannot create a second network namespace"
ip link add veA-$tag type veth peer name veB-$tag || skip "cannot create a veth pair"
ip link set veA-$tag netns $nsA && ip link set veB-$tag netns $nsB || skip "cannot move veth"
for side in A B; do
  ns=nsA; [[ $side == B ]] && ns=nsB
  ns=${!ns}
  ip_=ipA; [[ $side == B ]] && ip_=ipB
  ip -n $ns link set lo up
  # The same name on both hosts, so one FI_TCP_IFACE fits every PE.
  ip -n $ns link set ve$side-$tag name wan0
  ip -n $ns addr add ${!ip_}/24 dev wan0
  ip -n $ns link set wan0 up
  # A bridge-like interface with one address on every host (a veth pair
  # whose peer stays in the same namespace; no dummy module needed).
  ip -n $ns link add dock0 type veth peer name dock0p && ip -n $ns link set dock0p up &&
    ip -n $ns addr add 172.31.254.1/24 dev dock0 && ip -n $ns link set dock0 up ||
    skip "cannot create the second interface"
  # ip netns exec bind-mounts /etc/netns/NS/hosts over /etc/hosts.
  mkdir -p /etc/netns/$ns
  printf '127.0.0.1 localhost\n%s %s\n%s %s\n' $ipA $hA $ipB $hB >/etc/netns/$ns/hosts
done
# Reachable: a connection to a closed port is refused (no ping needed).
ip netns exec $nsA timeout 5 bash -c "exec 3<>/dev/tcp/$ipB/9" 2>&1 | grep -q refused ||
  skip "the namespaces cannot reach each other"

# Hydra's ssh launcher runs: EXEC -x HOST "proxy" args...; we enter HOST's
# namespace with its hostname instead of logging in.
cat >"$tmp/nsexec" <<EOF
#!/bin/bash
[[ \$1 == -x ]] && shift
host=\$1; shift
case \$host in
  $hA) ns=$nsA ;;
  $hB) ns=$nsB ;;
  *) echo "nsexec: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec \$ns unshare --uts /bin/sh -c "hostname \$host; exec \$*"
EOF
chmod +x "$tmp/nsexec"
export HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=$tmp/nsexec
unset PMI_FD PMI_PORT PMI_RANK PMI_SIZE FI_PROVIDER FI_TCP_IFACE

# Run "$@" on hostA (its namespace and hostname), bounded by $limit s.
on_a() {
  timeout -k 2 "$limit" ip netns exec $nsA unshare --uts /bin/sh -c \
    'hostname "$0"; exec "$@"' $hA "$@"
}

fail=0
for c in "$@"; do
  IFS=: read -r kind np prog args <<<"$c"
  out=$tmp/out
  start=$(date +%s.%N)
  case $kind in
  job)
    limit=60
    # Hydra places PEs round robin, one slot per host. The launcher's view
    # is checked by span: cases (WEFT_DEBUG), which are kept short.
    on_a env FI_TCP_IFACE=wan0 WEFT_WIREUP_TIMEOUT=20 WEFT_SPIN_YIELD=64 \
      mpiexec.hydra -hosts $hA,$hB -n $np "$prog" $args >"$out" 2>&1
    rc=$?
    ok=$(( rc == 0 ))
    ;;
  span)
    limit=30
    on_a env FI_TCP_IFACE=wan0 WEFT_DEBUG=1 \
      mpiexec.hydra -hosts $hA,$hB -n $np "$prog" $args >"$out" 2>&1
    rc=$?
    ok=$(( rc == 0 ))
    # The job really spans both hosts, as two nodes, over tcp.
    grep -q "PE [0-9]* of $np on $hA" "$out" || ok=0
    grep -q "PE [0-9]* of $np on $hB" "$out" || ok=0
    grep -q "ofi: using tcp" "$out" || ok=0
    ;;
  handoff)
    limit=60
    on_a env PATH="$PATH" FI_TCP_IFACE=wan0 WEFT_DEBUG=1 WEFT_SPIN_YIELD=64 \
      "$oshrun" -v --host $hA,$hB -n $np "$prog" $args >"$out" 2>&1
    rc=$?
    ok=$(( rc == 0 ))
    grep -q "handing the job to .*mpiexec.hydra -hosts $hA,$hB -n $np" "$out" || ok=0
    grep -q "PE [0-9]* of $np on $hB" "$out" || ok=0
    ;;
  wrongif)
    limit=30
    on_a env FI_TCP_IFACE=dock0 WEFT_WIREUP_TIMEOUT=5 FI_PROVIDER=tcp WEFT_ONNODE=0 \
      mpiexec.hydra -hosts $hA,$hB -n $np "$prog" >"$out" 2>&1
    rc=$?
    ok=$(( rc != 0 && rc != 124 && rc != 137 ))
    [[ -n ${TWOHOST_SHOW:-} ]] && cat "$out"
    grep -q "wire-up: .*PE [0-9]* at .* over provider tcp" "$out" || ok=0
    grep -q "FI_TCP_IFACE" "$out" || ok=0
    grep -q "interface dock0" "$out" || ok=0
    ;;
  *)
    echo "twohost.sh: unknown case $c" >&2
    exit 2
    ;;
  esac
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  if [[ $ok == 1 ]]; then
    echo "PASS $c (${secs}s)"
  else
    echo "FAIL $c (status $rc, ${secs}s):"
    grep -v "debug: pmi1\|debug: ofi: AMO" "$out" | sed 's/^/  | /' | head -60
    fail=1
  fi
done
exit $fail
