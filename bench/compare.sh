# SPDX-License-Identifier: BSD-3-Clause
# compare.sh: the --compare mode of bench/run-benchmarks (sourced by it, not
# run on its own): builds the benchmarks with another OpenSHMEM's oshcc,
# runs them interleaved with weft's and prints both side by side with the
# ratio. Uses run-benchmarks' options and helpers (paths, np, coll_np,
# benches, quick, extra, timeout_s, raw, out, fmt, num, human, label_of).

other_cc=$compare
[[ -d $other_cc ]] && other_cc=$other_cc/bin/oshcc
[[ -x $other_cc ]] || { echo "run-benchmarks: --compare: no oshcc at $other_cc" >&2; exit 2; }
other_run=$(dirname "$other_cc")/oshrun
[[ -x $other_run ]] || { echo "run-benchmarks: --compare: no $other_run" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run-benchmarks: --rounds must be a positive integer" >&2; exit 2; }
other_dir=$(mktemp -d)
trap 'rm -rf "$other_dir"' EXIT
# An OpenSHMEM benchmark the other cannot build is an error; a GASNet one
# (gasnet_bench) is left out when the other offers no gasnet.h, as Sandia
# OpenSHMEM and Open MPI's OSHMEM do not.
built=
for b in $benches; do
  if ! "$other_cc" -O2 -I"$src/bench" -o "$other_dir/bench_$b" "$src/bench/$b.c" -lm \
    >"$other_dir/cc.log" 2>&1; then
    if grep -q '#include <gasnet.h>' "$src/bench/$b.c" && grep -q 'gasnet.h' "$other_dir/cc.log"; then
      echo "run-benchmarks: --compare: $b left out: $other_cc offers no GASNet API" >&2
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
other_env=(env -u FI_PROVIDER OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
if [[ -z ${OSHRUN_LAUNCHER:-} ]] && command -v mpiexec.hydra >/dev/null; then
  other_env+=(OSHRUN_LAUNCHER=mpiexec.hydra)
fi

# run_one IMPL ROUND PATH NP BENCH: one run, its RESULT lines into $raw as
# "IMPL ROUND PATH NP NAME SIZE VALUE UNIT".
run_one() {
  local impl=$1 round=$2 path=$3 n=$4 b=$5 log rc=0 cmd
  log=$(mktemp)
  if [[ $impl == weft ]]; then
    cmd=(env -u FI_PROVIDER -u WEFT_PROVIDER -u WEFT_ONNODE)
    [[ $path != onnode ]] && cmd+=(WEFT_ONNODE=0 "FI_PROVIDER=$path")
    cmd+=("$oshrun" -n "$n" "$build/bin/bench_$b")
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
  echo "## weft against $compare"
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
)
echo "$report"
if [[ -n $out ]]; then
  echo "$report" >>"$out"
fi
