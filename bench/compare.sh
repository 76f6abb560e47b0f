# SPDX-License-Identifier: BSD-3-Clause
# compare.sh: the --compare and --compare-gasnet modes of
# bench/run-benchmarks (sourced by it, not run on its own): builds the
# OpenSHMEM benchmarks with another OpenSHMEM's oshcc and the GASNet ones
# with a GASNet-EX install's conduit makefile fragments, runs them
# interleaved with weft's and prints both side by side with the ratio. Uses
# run-benchmarks' options and helpers (paths, np, coll_np, benches, quick,
# extra, timeout_s, raw, out, fmt, num, human, label_of).

[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run-benchmarks: --rounds must be a positive integer" >&2; exit 2; }
if [[ -n $compare ]]; then
  other_cc=$compare
  [[ -d $other_cc ]] && other_cc=$other_cc/bin/oshcc
  [[ -x $other_cc ]] || { echo "run-benchmarks: --compare: no oshcc at $other_cc" >&2; exit 2; }
  other_run=$(dirname "$other_cc")/oshrun
  [[ -x $other_run ]] || { echo "run-benchmarks: --compare: no $other_run" >&2; exit 2; }
fi
# GASNet-EX: the smp conduit stands against weft's direct path (onnode), the
# ofi conduit against weft over the same provider.
gasnet_conduit() { [[ $1 == onnode ]] && echo smp || echo ofi; }
if [[ -n $compare_gasnet ]]; then
  compare_gasnet=$(cd "$compare_gasnet" 2>/dev/null && pwd) ||
    { echo "run-benchmarks: --compare-gasnet: no directory $compare_gasnet" >&2; exit 2; }
  for path in $paths; do
    c=$(gasnet_conduit "$path")
    [[ -f $compare_gasnet/include/$c-conduit/$c-seq.mak ]] || {
      echo "run-benchmarks: --compare-gasnet: no $c conduit (include/$c-conduit/$c-seq.mak) in $compare_gasnet for path $path" >&2
      exit 2; }
  done
fi
other_dir=$(mktemp -d)
trap 'rm -rf "$other_dir"' EXIT
is_gasnet() { grep -q '#include <gasnet.h>' "$src/bench/$1.c"; }
# build_gasnet BENCH CONDUIT: $other_dir/bench_BENCH.CONDUIT with the
# conduit's SEQ makefile fragment (its compiler, flags and libraries).
build_gasnet() {
  local b=$1 c=$2
  [[ -x $other_dir/bench_$b.$c ]] && return 0
  {
    echo "include $compare_gasnet/include/$c-conduit/$c-seq.mak"
    echo "bench_$b.$c: $src/bench/$b.c"
    printf '\t$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -I%s -c -o $@.o $<\n' "$src/bench"
    printf '\t$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $@.o $(GASNET_LIBS) -lm\n'
  } >"$other_dir/Makefile.$c"
  make -s -C "$other_dir" -f "Makefile.$c" "bench_$b.$c" >"$other_dir/cc.log" 2>&1 || {
    echo "run-benchmarks: --compare-gasnet: the $c conduit cannot build $b:" >&2
    sed 's/^/  | /' "$other_dir/cc.log" >&2
    exit 2
  }
}
# A GASNet benchmark goes to GASNet-EX when --compare-gasnet is given, an
# OpenSHMEM one to --compare's implementation; one whose implementation is
# not given is left out, and so is a GASNet one that the other OpenSHMEM
# cannot build for want of gasnet.h (Sandia OpenSHMEM and Open MPI's OSHMEM
# offer none). Any other build failure is an error.
built=
for b in $benches; do
  if is_gasnet "$b" && [[ -n $compare_gasnet ]]; then
    for path in $paths; do build_gasnet "$b" "$(gasnet_conduit "$path")"; done
    built+=" $b"
    continue
  fi
  if [[ -z $compare ]]; then
    echo "run-benchmarks: --compare-gasnet: $b left out: not a GASNet benchmark (--compare OTHER compares it)" >&2
    continue
  fi
  if ! "$other_cc" -O2 -I"$src/bench" -o "$other_dir/bench_$b" "$src/bench/$b.c" -lm \
    >"$other_dir/cc.log" 2>&1; then
    if is_gasnet "$b" && grep -q 'gasnet.h' "$other_dir/cc.log"; then
      echo "run-benchmarks: --compare: $b left out: $other_cc offers no GASNet API (--compare-gasnet compares it)" >&2
      continue
    fi
    echo "run-benchmarks: --compare: $other_cc cannot build $b:" >&2
    sed 's/^/  | /' "$other_dir/cc.log" >&2
    exit 2
  fi
  built+=" $b"
done
benches=${built# }
[[ -n $benches ]] || { echo "run-benchmarks: --compare: no benchmark to compare" >&2; exit 2; }
# One host: the other's tcp and sockets traffic stays on loopback, as weft's
# does by default (its own choice of interface would be the first one up).
other_env=(env -u FI_PROVIDER OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  "FI_TCP_IFACE=${FI_TCP_IFACE:-lo}" "FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}")
if [[ -z ${OSHRUN_LAUNCHER:-} ]] && command -v mpiexec.hydra >/dev/null; then
  other_env+=(OSHRUN_LAUNCHER=mpiexec.hydra)
fi
# The ofi conduit's processes are started by its gasnetrun_ofi (with the
# spawner it was configured for) unless GASNET_OFI_LAUNCHER names another
# command that takes "-n N PROGRAM" (e.g. mpiexec.hydra).
read -r -a gasnet_ofi_run <<<"${GASNET_OFI_LAUNCHER:-${compare_gasnet:+$compare_gasnet/bin/gasnetrun_ofi}}"

# run_one IMPL ROUND PATH NP BENCH: one run, its RESULT lines into $raw as
# "IMPL ROUND PATH NP NAME SIZE VALUE UNIT".
run_one() {
  local impl=$1 round=$2 path=$3 n=$4 b=$5 log rc=0 cmd
  log=$(mktemp)
  if [[ $impl == weft ]]; then
    cmd=(env -u FI_PROVIDER -u WEFT_PROVIDER -u WEFT_ONNODE)
    [[ $path != onnode ]] && cmd+=(WEFT_ONNODE=0 "FI_PROVIDER=$path")
    cmd+=("$oshrun" -n "$n" "$build/bin/bench_$b")
  elif is_gasnet "$b" && [[ -n $compare_gasnet ]]; then
    cmd=("${other_env[@]}")
    if [[ $path == onnode ]]; then
      cmd+=("GASNET_PSHM_NODES=$n" "$other_dir/bench_$b.smp")
    else
      # Each process a supernode of its own: all traffic through libfabric,
      # none through GASNet's shared memory (as weft's WEFT_ONNODE=0).
      cmd+=(GASNET_SUPERNODE_MAXSIZE=1 "FI_PROVIDER=$path" "${gasnet_ofi_run[@]}" -n "$n"
        "$other_dir/bench_$b.ofi")
    fi
  else
    cmd=("${other_env[@]}")
    [[ $path != onnode ]] && cmd+=("FI_PROVIDER=$path")
    cmd+=("$other_run" -n "$n" "$other_dir/bench_$b")
  fi
  echo "# [$impl $path round $round] ${cmd[*]}" >&2
  timeout -k 10 "$timeout_s" "${cmd[@]}" "${quick[@]}" "${extra[@]}" >"$log" 2>&1 || rc=$?
  # The benchmark's header names the library (shmem_info_get_name).
  [[ -s $other_dir/name.$impl ]] ||
    sed -n 's/^# \(.*\), [0-9]* PEs, provider.*/\1/p' "$log" | head -1 >"$other_dir/name.$impl"
  if [[ $rc -eq 0 ]]; then
    awk -v i="$impl" -v r="$round" -v p="$path" -v n="$n" \
      '$1 == "RESULT" { print i, r, p, n, $2, $3, $4, $5 }' "$log" >>"$raw"
  else
    echo "run-benchmarks: $impl $b failed (status $rc) on $path at $n PEs:" >&2
    sed 's/^/  | /' "$log" | tail -20 >&2
    status=1
  fi
  rm -f "$log"
}

# Interleaved: within a round every benchmark runs weft then the other, so
# both see the same load.
for ((r = 1; r <= rounds; r++)); do
  for path in $paths; do
    for b in $benches; do
      nps=$np
      is_coll "$b" && nps=$coll_np
      for n in $nps; do
        run_one weft "$r" "$path" "$n" "$b"
        run_one other "$r" "$path" "$n" "$b"
      done
    done
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - started))

report=$(
  echo "## weft against ${compare:-}${compare:+${compare_gasnet:+ and }}${compare_gasnet:+GASNet-EX $compare_gasnet}"
  echo
  echo "\`$command_line\`, weft $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?'),"
  echo "$(nproc) CPUs, load average $load_start at the start and $load_end at the end,"
  echo "$elapsed s, $rounds interleaved round(s); medians (min-max)."
  echo "Ratio: the other's figure over weft's for times, weft's over the other's for"
  echo "rates and bandwidths: above 1 means weft is faster."
  echo
  echo "| path | PEs | benchmark | size | weft | other | ratio |"
  echo "| --- | ---: | --- | ---: | ---: | ---: | ---: |"
  # One row per (path, np, name, size) in the order first seen.
  awk '
    { key = $3 SUBSEP $4 SUBSEP $5 SUBSEP $6
      if (!(key in seen)) { seen[key] = 1; order[++nk] = key; unit[key] = $8 }
      v[key, $1, ++cnt[key, $1]] = $7 }
    function med(key, impl,    n, i, j, t, a) {
      n = cnt[key, impl]; if (!n) return ""
      for (i = 1; i <= n; i++) a[i] = v[key, impl, i] + 0
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      lo = a[1]; hi = a[n]
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    function f(x) { if (x == "") return "n/a"; if (x >= 100) return sprintf("%.0f", x);
      if (x >= 10) return sprintf("%.1f", x); if (x >= 1) return sprintf("%.2f", x);
      return sprintf("%.3g", x) }
    END {
      for (k = 1; k <= nk; k++) {
        key = order[k]; split(key, p, SUBSEP)
        w = med(key, "weft"); wl = lo; wh = hi
        o = med(key, "other"); ol = lo; oh = hi
        ratio = ""
        if (w != "" && o != "" && w > 0 && o > 0)
          ratio = (unit[key] == "us") ? o / w : w / o
        wc = (w == "") ? "fail" : f(w) " (" f(wl) "-" f(wh) ")"
        oc = (o == "") ? "fail" : f(o) " (" f(ol) "-" f(oh) ")"
        printf "| %s | %s | %s (%s) | %s | %s | %s | %s |\n", p[1], p[2], p[3], unit[key],
          p[4], wc, oc, (ratio == "" ? "n/a" : sprintf("%.2fx", ratio))
      }
    }' "$raw"
  echo
  echo "weft: $(cat "$other_dir/name.weft" 2>/dev/null); other: $(cat "$other_dir/name.other" 2>/dev/null)."
  if [[ -n $compare_gasnet ]]; then
    echo "GASNet benchmarks against GASNet-EX ($compare_gasnet): smp conduit on onnode, ofi conduit on the other paths."
  fi
)
echo "$report"
if [[ -n $out ]]; then
  echo "$report" >>"$out"
fi
