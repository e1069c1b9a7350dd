#!/usr/bin/env bash
# Builds benchmarks at two commits and runs them in turn on this machine (base, head, base, head,
# …), so that drift in the machine's speed falls on both: the check that a change costs no speed.
# Prints, for every table row of every benchmark and each numeric column, head/base of the best
# (largest) value over the rounds, then the median over the rounds of head/base; the benchmarks'
# columns are rates, so the best is the run least disturbed by the rest of the machine. Keeps the
# raw outputs.
# Usage: bash scripts/bench-compare.sh BASE HEAD [rounds (3)] [benchmarks (bench_engine_packs bench_lorenz_cpu)]
# Output in ${LIEBATCH_COMPARE_DIR:-~/.cache/liebatch/bench-compare}: BASE/ and HEAD/ (worktrees and
# builds, reused by a later run: so the directory must be this user's alone), raw/ (one file per
# benchmark, commit and round).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n 2,8p "$0" >&2; exit 2; }
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
base=$(git -C "$repo" rev-parse --short "$1")
head=$(git -C "$repo" rev-parse --short "$2")
rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
benches=("$@")
[[ ${#benches[@]} -gt 0 ]] || benches=(bench_engine_packs bench_lorenz_cpu)
dir=${LIEBATCH_COMPARE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/liebatch/bench-compare}
mkdir -p -m 700 "$dir"
# Its builds are run: another user who could write there could plant them.
if [[ -L $dir || $(stat -c %u "$dir") != "$(id -u)" ]] || (( 8#$(stat -c %a "$dir") & 022 )); then
  echo "bench-compare: '$dir' is not this user's alone (a link, another owner, or writable by others); set LIEBATCH_COMPARE_DIR" >&2
  exit 2
fi
mkdir -p "$dir/raw"
for c in "$base" "$head"; do
  if [[ ! -d $dir/$c/src ]]; then git -C "$repo" worktree add --detach "$dir/$c/src" "$c" > /dev/null; fi
  cmake -S "$dir/$c/src" -B "$dir/$c/build" -DCMAKE_BUILD_TYPE=Release -DLIEBATCH_BENCH=ON -DLIEBATCH_CUDA=OFF \
    -DLIEBATCH_BUILD_TESTS=OFF -DLIEBATCH_BUILD_EXAMPLES=OFF -DLIEBATCH_BUILD_CLI=OFF > /dev/null
  cmake --build "$dir/$c/build" -j"$(nproc)" --target "${benches[@]}" > /dev/null
done
for r in $(seq "$rounds"); do
  for b in "${benches[@]}"; do
    for c in "$base" "$head"; do "$dir/$c/build/bench/$b" > "$dir/raw/$b.$c.$r.txt"; done
  done
done
python3 - "$dir/raw" "$base" "$head" "$rounds" "${benches[@]}" <<'PY'
import re, statistics, sys
raw, base, head, rounds, benches = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
num = re.compile(r"^[-+]?\d+(\.\d+)?(e[-+]?\d+)?( %)?$")
def rows(path):  # table rows: the key is the row's text cells, the values its numeric ones
    out = {}
    for line in open(path):
        if not line.startswith("|") or set(line) <= set("|-: \n"): continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        vals = [float(c.rstrip(" %")) if num.match(c) else None for c in cells]
        key = " | ".join(c for c, v in zip(cells, vals) if v is None)
        out.setdefault(key, [v for v in vals if v is not None])
    return out
print(f"head {head} / base {base}, {rounds} rounds; per numeric column: best/best (median of the ratios)")
for b in benches:
    print(f"\n{b}")
    runs = {c: [rows(f"{raw}/{b}.{c}.{r}.txt") for r in range(1, rounds + 1)] for c in (base, head)}
    for key, v0 in runs[base][0].items():
        ratios = []
        for i in range(len(v0)):
            rs = [h[key][i] / b_[key][i] for b_, h in zip(runs[base], runs[head]) if key in h and b_[key][i]]
            best_b = max(r[key][i] for r in runs[base])
            best_h = max(r[key][i] for r in runs[head] if key in r)
            ratios.append(f"{best_h / best_b:.3f} ({statistics.median(rs):.3f})" if rs else "-")
        print(f"  {key[:70]:70s} {' '.join(ratios)}")
PY
