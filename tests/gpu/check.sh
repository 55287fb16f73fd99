#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The real-GPU check of the CUDA adapter, in one short run on a machine with an
# NVIDIA GPU, nvcc and PyTorch (no OTF2, HDF5 or MPI needed there):
#
#   tests/gpu/pack.sh BUILD PACK      here: Strata and the libraries it needs
#   tests/gpu/check.sh PACK OUT       there, from the repository root
#   tests/gpu/verify.py OUT           here again: reads the experiments
#
# It runs programs/known_answers.cu (exact counts, bytes, CUDA-event times)
# plain and under Strata, and torch_loop.py plain, under Strata (with GPU
# metrics sampled; with and without emit_nvtx) and under torch.profiler.  Profiles are off there (no
# HDF5); traces, logs and the programs' own answers go to OUT.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 PACK OUT" >&2
    exit 2
fi
PACK=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
export LD_LIBRARY_PATH="$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ADAPTER="$PACK/lib/libstrata-cuda.so"
# GPU_CHECK_STEPS: the PyTorch loop's steps (100); not STRATA_*, which the measured programs would read as theirs.
STEPS=${GPU_CHECK_STEPS:-100}

# Under Strata: tracing, no profile, a summary of what CUDA recorded on stderr.
strata() {
    local experiment=$1
    shift
    env LD_PRELOAD="$ADAPTER" STRATA_ENABLE_TRACING=1 STRATA_ENABLE_PROFILING=0 STRATA_VERBOSE=1 \
        STRATA_EXPERIMENT_DIRECTORY="$OUT/$experiment" STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=1 "$@"
}

step() { echo "== $* ($(date +%T))"; }

# GPU_CHECK_PARTS: which parts run (all by default), for a rerun that fits
# what is left of the GPU time.
PARTS=${GPU_CHECK_PARTS:-known_answers bench example torch}
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Runs a command for at most LIMIT seconds; a command still running then is
# shown where it waits (every thread's stack, where gdb is at hand) and killed,
# so that one hang does not take the whole run.
limited() {
    local limit=$1
    shift
    "$@" &
    local pid=$! waited=0
    while kill -0 "$pid" 2> /dev/null && [ "$waited" -lt "$limit" ]; do
        sleep 1
        waited=$((waited + 1))
    done
    if kill -0 "$pid" 2> /dev/null; then
        echo "!! still running after ${limit}s: $*" >&2
        for child in $(pgrep -P "$pid") $(pgrep -f gpu_streams) $(pgrep -f torch_loop) "$pid"; do
            echo "-- process $child: $(tr '\0' ' ' < "/proc/$child/cmdline" 2> /dev/null)" >&2
            command -v gdb > /dev/null &&
                gdb -batch -p "$child" -ex "thread apply all bt 12" 2>&1 | grep -E "^#|^Thread" >&2
        done
        pkill -KILL -P "$pid"
        kill -KILL "$pid"
    fi
    wait "$pid"
}

{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    nvcc --version | tail -2
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
    uname -a
} > "$OUT/environment.txt" 2>&1

if part known_answers; then
step "known_answers: build with nvcc"
nvcc -O2 -lineinfo -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
    -o "$WORK/known_answers" "$HERE/programs/known_answers.cu" > "$OUT/nvcc.log" 2>&1 ||
    { cat "$OUT/nvcc.log"; exit 1; }
step "known_answers: plain"
KNOWN_ANSWERS="$OUT/known_answers_plain.json" "$WORK/known_answers"
step "known_answers: under Strata"
KNOWN_ANSWERS="$OUT/known_answers.json" strata known_answers "$WORK/known_answers" 2> "$OUT/known_answers.log"
tail -5 "$OUT/known_answers.log"
fi

if part bench; then
step "bench/cuda_launch.cu: ns per launch and per NVTX range, plain, under CUPTI alone and under Strata"
nvcc -O2 -gencode arch=compute_90,code=sm_90 -o "$WORK/cuda_launch" "$HERE/../../bench/cuda_launch.cu" -ldl \
    >> "$OUT/nvcc.log" 2>&1 || { cat "$OUT/nvcc.log"; exit 1; }
# Five rounds, each configuration once per round, so that a slow phase of the
# machine touches all of them alike.  cupti and cupti+callbacks: CUPTI's own
# cost, with no Strata (what any CUPTI-based tool pays).
for round in 1 2 3 4 5; do
    "$WORK/cuda_launch" >> "$OUT/bench_plain.json"
    "$WORK/cuda_launch" 100000 1000000 cupti >> "$OUT/bench_cupti.json" 2>> "$OUT/bench.log"
    "$WORK/cuda_launch" 100000 1000000 cupti+callbacks >> "$OUT/bench_cupti_callbacks.json" 2>> "$OUT/bench.log"
    strata bench_profile env STRATA_ENABLE_TRACING=0 STRATA_ENABLE_PROFILING=1 "$WORK/cuda_launch" \
        >> "$OUT/bench_profile.json" 2>> "$OUT/bench.log"
    strata bench_trace "$WORK/cuda_launch" >> "$OUT/bench_trace.json" 2>> "$OUT/bench.log"
    strata bench_api_only env STRATA_ENABLE_TRACING=0 STRATA_ENABLE_PROFILING=1 \
        STRATA_CUDA_ENABLE=runtime,nvtx \
        "$WORK/cuda_launch" >> "$OUT/bench_api_only.json" 2>> "$OUT/bench.log"
done
for round in 1 2 3; do
    strata bench_user env STRATA_ENABLE_TRACING=0 STRATA_ENABLE_PROFILING=1 \
        "$PACK/bin/bench-user-regions-strata" \
        1000000 >> "$OUT/bench_user_regions.txt" 2>> "$OUT/bench.log"
done
for f in plain cupti cupti_callbacks api_only profile trace; do
    echo "$f: launch ns $(sed 's/.*"launch_ns": \([0-9.]*\).*/\1/' "$OUT/bench_$f.json" | tr '\n' ' ')," \
        "NVTX range ns $(sed 's/.*"nvtx_range_ns": \([0-9.]*\).*/\1/' "$OUT/bench_$f.json" | tr '\n' ' ')"
done
echo "user regions (profile): $(tr '\n' ' ' < "$OUT/bench_user_regions.txt")"
# Only their times matter.
rm -rf "$OUT/bench_profile" "$OUT/bench_trace" "$OUT/bench_api_only" "$OUT/bench_user"
fi

if part example; then
step "the MPI + CUDA example (share/examples/gpu_streams.cu) on 2 ranks, one GPU"
# The example links Strata itself: no LD_PRELOAD (it would measure mpirun too).
export STRATA_ENABLE_TRACING=1 STRATA_ENABLE_PROFILING=0 STRATA_VERBOSE=1 STRATA_CUDA_SAMPLING_INTERVAL=20ms
export STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=1
export STRATA_EXPERIMENT_DIRECTORY="$OUT/gpu_streams"
if command -v mpirun > /dev/null; then
    limited 60 mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_LIBRARY_PATH -x STRATA_ENABLE_TRACING \
        -x STRATA_ENABLE_PROFILING -x STRATA_VERBOSE -x STRATA_OVERWRITE_EXPERIMENT_DIRECTORY \
        -x STRATA_CUDA_SAMPLING_INTERVAL \
        -x STRATA_EXPERIMENT_DIRECTORY "$PACK/bin/gpu_streams" -n 10 > "$OUT/gpu_streams.log" 2>&1
else
    echo "no mpirun: one rank" > "$OUT/gpu_streams.log"
    "$PACK/bin/gpu_streams" -n 10 >> "$OUT/gpu_streams.log" 2>&1
fi
unset STRATA_ENABLE_TRACING STRATA_ENABLE_PROFILING STRATA_VERBOSE STRATA_OVERWRITE_EXPERIMENT_DIRECTORY
unset STRATA_CUDA_SAMPLING_INTERVAL
unset STRATA_EXPERIMENT_DIRECTORY
tail -4 "$OUT/gpu_streams.log"
fi

if part torch; then
step "torch loop: plain"
python3 "$HERE/torch_loop.py" plain "$STEPS" > "$OUT/torch_plain.json" 2> "$OUT/torch_plain.log"
step "torch loop: under Strata (strata-preload --cuda, as a user runs it), GPU metrics every 50 ms"
limited 120 env STRATA_ENABLE_TRACING=1 STRATA_ENABLE_PROFILING=0 STRATA_VERBOSE=1 \
    STRATA_CUDA_SAMPLING_INTERVAL=50ms STRATA_EXPERIMENT_DIRECTORY="$OUT/torch" \
    STRATA_OVERWRITE_EXPERIMENT_DIRECTORY=1 \
    "$PACK/bin/strata-preload" --cuda python3 "$HERE/torch_loop.py" strata "$STEPS" \
    > "$OUT/torch_strata.json" 2> "$OUT/torch.log"
tail -5 "$OUT/torch.log"
step "torch loop: under Strata, API calls and NVTX only (no GPU activity)"
STRATA_CUDA_ENABLE=runtime,nvtx strata torch_api_only python3 "$HERE/torch_loop.py" strata "$STEPS" \
    > "$OUT/torch_api_only.json" 2> "$OUT/torch_api_only.log"
rm -rf "$OUT/torch_api_only"
step "torch loop: plain again (the overhead is the difference to the mean of both plain runs)"
python3 "$HERE/torch_loop.py" plain "$STEPS" > "$OUT/torch_plain2.json" 2>> "$OUT/torch_plain.log"
step "torch loop: torch.profiler (kernel counts)"
python3 "$HERE/torch_loop.py" profiler "$STEPS" "$OUT/torch_profiler_counts.json" \
    > "$OUT/torch_profiler.json" \
    2> "$OUT/torch_profiler.log"
step "torch loop: under Strata with emit_nvtx (the ops view against torch.profiler's operator table)"
strata torch_emit_nvtx python3 "$HERE/torch_loop.py" strata "$STEPS" --emit-nvtx \
    > "$OUT/torch_emit_nvtx.json" 2> "$OUT/torch_emit_nvtx.log"
tail -3 "$OUT/torch_emit_nvtx.log"
cat "$OUT"/torch_plain.json "$OUT"/torch_strata.json "$OUT"/torch_api_only.json "$OUT"/torch_plain2.json
fi
du -sh "$OUT"
rm -rf "$WORK"
step "done"
