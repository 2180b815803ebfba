#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang 14, ASan + UBSan) and runs each one for SECONDS
# (default 60), two at a time, starting from the committed seed corpus (copied: the corpus in the
# repository is not changed). Fails if any target finds a crash, a leak, UB or a broken invariant.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. bash scripts/fuzz.sh 600 fuzz_attention
#
# Crash inputs are kept in build/fuzz-runs/<target>/ (crash-*, leak-*, …); logs beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_vectors fuzz_text fuzz_attention fuzz_model fuzz_pieces fuzz_subwords)

CXX=clang++-14 cmake -S . -B build/fuzz -DATTN_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target "${targets[@]}"

run() {
  local t=$1 dir=build/fuzz-runs/$1
  rm -rf "$dir" && mkdir -p "$dir/corpus"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/"
  # -rss_limit_mb: the attention target allocates up to a few MB per input; 2 GB means a real leak.
  if (cd "$dir" && "../../fuzz/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 \
        -rss_limit_mb=2048 -artifact_prefix=./ corpus >log.txt 2>&1); then
    echo "fuzz $t: $(grep -m1 'stat::number_of_executed_units' "$dir/log.txt" | awk '{print $2}') execs in ${seconds} s, no finding"
  else
    echo "fuzz $t: FAILED, see $dir/log.txt:"
    grep -E 'ERROR|INVARIANT|runtime error|SUMMARY' "$dir/log.txt" | head -5
    return 1
  fi
}

# Two at a time (the machines have two cores).
status=0
pids=()
for t in "${targets[@]}"; do
  run "$t" &
  pids+=($!)
  if ((${#pids[@]} == 2)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
