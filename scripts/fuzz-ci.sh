#!/usr/bin/env bash
# Builds every fuzz target that `cargo fuzz list` names and runs each for FUZZ_SECONDS
# (default 20) from its committed seeds (fuzz/seeds/<target>/; the scenario fuzzer starts
# from scenarios/examples), then prints executions per
# second and total runs per target. A crash fails CI: its input is left in
# fuzz/artifacts/<target>/ and becomes a regression test in the normal test suite.
#
# cargo-fuzz is installed from crates.io when missing (about 40 s on 2 cores); the targets
# are built with the nightly toolchain, address sanitizer, debug assertions and overflow
# checks (cargo-fuzz's defaults for `build`).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECS=${FUZZ_SECONDS:-20}
CARGO_FUZZ_VERSION=0.13.2
if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi
# Several codegen units: the simulator crates are large and CI has 2 cores.
cargo +nightly fuzz build --debug-assertions --codegen-units 8
targets=$(cargo +nightly fuzz list)
summary=""
status=0
for t in $targets; do
  work=$(mktemp -d)
  seeds=seeds/$t
  # The example scenarios are the scenario fuzzer's seeds (not copied: they change).
  if [ "$t" = scenario ]; then
    seeds="../scenarios/examples"
  fi
  if [ ! -d "$seeds" ]; then
    echo "fuzz: $t has no seeds in fuzz/$seeds: starting from nothing" >&2
    seeds=""
  fi
  log=$(mktemp)
  # -timeout: one input taking longer than that is a finding (a hang); -rss_limit_mb: the
  # simulator must refuse what does not fit rather than grow without bound.
  if ! cargo +nightly fuzz run --debug-assertions --codegen-units 8 "$t" "$work" $seeds -- \
      -max_total_time="$SECS" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
      >"$log" 2>&1; then
    tail -60 "$log" >&2
    echo "fuzz: $t FAILED (input in fuzz/artifacts/$t/)" >&2
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  summary+=$(printf '%-12s %10s runs %8s execs/s' "$t" "${runs:-?}" "${secs:-?}")$'\n'
  rm -rf "$work" "$log"
done
printf 'fuzz summary (%s s per target):\n%s' "$SECS" "$summary"
exit $status
