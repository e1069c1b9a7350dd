#!/usr/bin/env bash
# The "GPU checks not yet run" list of bench/RESULTS.md on a lent GPU machine that lacks the build's
# dependencies (Eigen, GoogleTest, HDF5, … are Debian packages there is no network to install):
# build here, carry the executables and their shared libraries, run them there.
#
#   here:  cmake -S . -B build-gpu -DLIEBATCH_CUDA=ON -DLIEBATCH_CUDA_CHECK_ONLY=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DLIEBATCH_BUILD_EXAMPLES=OFF -DLIEBATCH_BENCH=ON \
#            -DLIEBATCH_CLI_GPU_METHODS="rkmk4;cf4;rkmk54;slgi0;slgi_half;slgi1;hp_sv_exp;hp_sv_cay"   # the symplectic ones for Cli.Gpu*
#          cmake --build build-gpu -j2 --target liebatch_cli test_cli <gpu_tests> <benches>   # (lists below) ~32 min on 2 cores
#          bash bench/gpu_checks.sh stage build-gpu   # .gpu/ and its archive .gpu-bundle/gpu.tar.xz (~29 MB)
#   there: bash bench/gpu_checks.sh tests             # the GPU tests, logs under $OUT (about a minute)
#          bash bench/gpu_checks.sh bench             # bench/run_all.sh on the prebuilt benchmarks (about a minute)
# (device tool: carry [".gpu-bundle"]; both git-ignored through .git/info/exclude). The build dir must
# sit in the checkout's root: the tests have its absolute paths compiled in (the command line's
# executable, its scratch folder, the example configs), which `tests`/`bench` link to the checkout there.
set -euo pipefail
shopt -s nullglob  # a session may stage without the benchmarks
cd "$(dirname "$0")/.."
mode=${1:?usage: gpu_checks.sh stage BUILD | tests | bench}

gpu_tests=(test_core_device test_ensemble_gpu test_statistics_gpu test_sampling_gpu)
benches=(bench_flop_count bench_cpu_throughput bench_pendulum_scaling bench_lie_vs_classical bench_lorenz_cpu
         bench_pack_step bench_engine_packs bench_symplectic_cost bench_throughput bench_lorenz)

if [[ $mode == stage ]]; then
  build=${2:?stage needs the build directory}
  if grep -q '^LIEBATCH_CUDA_CHECK_ONLY:BOOL=ON' "$build/CMakeCache.txt"; then
    echo "gpu_checks: $build compiled its kernels to check them, not to run them (LIEBATCH_CUDA_CHECK_ONLY=ON)" >&2
    exit 1
  fi
  exclude=$(git rev-parse --git-path info/exclude)  # (a worktree's .git is a file)
  for d in /.gpu/ /.gpu-bundle/; do grep -qx "$d" "$exclude" || echo "$d" >> "$exclude"; done
  rm -rf .gpu && mkdir -p .gpu/build/tests .gpu/build/bench .gpu/lib
  for t in "${gpu_tests[@]}" test_cli; do cp "$build/tests/$t" .gpu/build/tests/; done
  for b in "${benches[@]}"; do  # those built (a session may build the GPU ones alone)
    if [[ -x $build/bench/$b ]]; then cp "$build/bench/$b" .gpu/build/bench/; else echo "gpu_checks: $b not built, not staged"; fi
  done
  cp "$build/liebatch" .gpu/build/
  strip --strip-debug .gpu/build/liebatch .gpu/build/tests/* .gpu/build/bench/*
  # Every shared library but the C library's own (the GPU machine's glibc is at least as new).
  ldd .gpu/build/liebatch .gpu/build/tests/* .gpu/build/bench/* | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda)\.so' | xargs -I{} cp -L {} .gpu/lib/
  echo "$(cd "$build" && pwd)" > .gpu/build_dir
  git rev-parse --short HEAD > .gpu/commit
  # The device tool carries at most 64 MiB: one xz archive (the executables hold their fatbins).
  mkdir -p .gpu-bundle
  tar -C .gpu -cf - . | xz -T0 -6 > .gpu-bundle/gpu.tar.xz
  du -sh .gpu .gpu-bundle/gpu.tar.xz
  exit 0
fi

if [[ ! -f .gpu/build_dir && -f .gpu-bundle/gpu.tar.xz ]]; then mkdir -p .gpu && xz -dc .gpu-bundle/gpu.tar.xz | tar -C .gpu -xf -; fi

[[ -f .gpu/build_dir ]] || { echo "gpu_checks: no .gpu/ (run 'stage' on the build machine, carry .gpu-bundle)" >&2; exit 2; }
out=${OUT:-/tmp/gpu_checks}; mkdir -p "$out"
built=$(cat .gpu/build_dir)
# The compiled-in paths: <source>/… and <source>/<build>/… resolve into this checkout and .gpu/build.
src=$(dirname "$built")
if [[ ! -e $src ]]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi
[[ -e $built ]] || ln -s "$PWD/.gpu/build" "$built"
mkdir -p .gpu/build/tests/cli_scratch
export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [[ $mode == tests ]]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/device.txt"
  status=0
  for t in "${gpu_tests[@]}"; do
    "$built/tests/$t" 2>&1 | tee "$out/$t.log" || status=1
  done
  "$built/tests/test_cli" --gtest_filter='Cli.Gpu*' 2>&1 | tee "$out/test_cli_gpu.log" || status=1
  exit $status
elif [[ $mode == bench ]]; then
  LIEBATCH_BENCH_PREBUILT=1 LIEBATCH_COMMIT="$(cat .gpu/commit)" bash bench/run_all.sh "$built"
  cp bench/RESULTS.md "$out/"
else
  echo "gpu_checks: unknown mode '$mode'" >&2; exit 2
fi
