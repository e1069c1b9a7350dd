#!/usr/bin/env bash
# Checks the C++ and CUDA lines a change adds against .clang-format (issue 34): the tree is not
# reformatted at once, but no change adds to what differs. Prints what clang-format would make of
# the lines and exits 1 when any differ; `git clang-format BASE` rewrites them.
# Usage: bash scripts/check-format.sh [BASE (default: the parent commit)]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
if ! git rev-parse -q --verify "$base^{commit}" > /dev/null; then
  echo "check-format: no commit '$base' to compare with (a shallow clone?): nothing checked"
  exit 0
fi
out=$(git clang-format --diff "$base" -- '*.hpp' '*.cpp' '*.cu' '*.cuh' '*.cuh.in' '*.cu.in' 2>&1) || true
if [[ -z $out || $out == *"no modified files to format"* || $out == *"did not modify any files"* ]]; then
  echo "check-format: the lines changed since $(git rev-parse --short "$base") follow .clang-format"
  exit 0
fi
printf '%s\n' "$out"
echo "check-format: the lines above differ from .clang-format; run: git clang-format $base" >&2
exit 1
