#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks what tests/gpu/check.sh brought back from a GPU machine, with the OTF2
Python bindings and strata-analyze (both here; the GPU machine has neither):

known_answers (programs/known_answers.cu):
  - exact kernel counts per name, copies per direction, memsets, two streams
    or more, the CUDA graph's 12 kernels, no record dropped or without times;
  - each busy_a kernel's duration within 5 % (and 20 us) of its CUDA-event time;
  - every kernel starts after the host call that launched it (joined by
    CUDA_CORRELATION_ID) and ends before the end of the first synchronising
    call made after that launch on the same thread;
  - five NVTX "iteration" ranges.
torch_loop.py:
  - per-kernel launch counts equal torch.profiler's in a separate run;
  - bf16 GEMMs flagged as Tensor Core kernels by strata-analyze;
  - one iteration per NVTX "step" range (strata-analyze --key-region step);
  - the overhead per step against the plain runs.

    verify.py OUT --analyze STRATA_ANALYZE
Prints every figure; exits 1 if a check failed.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys

import otf2

failures = []
SYNC_CALLS = ('cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize', 'cudaMemcpy',
              'cuCtxSynchronize', 'cuStreamSynchronize')


def check(condition, message):
    print(('ok: ' if condition else 'FAILED: ') + message)
    if not condition:
        failures.append(message)


def location_key(location):
    """'rank 1/CUDA[0:13]': stream names repeat on every rank."""
    return '%s/%s' % (location.group.name, location.name)


def read_trace(anchor):
    """{location key: [(region name, role, enter, leave, correlation, {attribute: value})]}, the
    locations' types and the timer resolution."""
    out = collections.defaultdict(list)
    kinds = {}
    with otf2.reader.open(anchor) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
        for l in trace.definitions.locations:
            kinds[location_key(l)] = l.type
        stacks = collections.defaultdict(list)
        for location, e in trace.events:
            key = location_key(location)
            if isinstance(e, otf2.events.Enter):
                attributes = {a.name: v for a, v in e.attributes.items()} if e.attributes else {}
                stacks[key].append((e.region, e.time, attributes))
            elif isinstance(e, otf2.events.Leave):
                region, start, attributes = stacks[key].pop()
                out[key].append((region.name, region.region_role, start, e.time,
                                 attributes.get('CUDA_CORRELATION_ID', 0), attributes))
    return out, kinds, resolution


def gpu_intervals(trace, kinds):
    return [(loc, i) for loc, items in trace.items() if kinds[loc] == otf2.LocationType.ACCELERATOR_STREAM
            for i in items]


def check_known_answers(out):
    exp = os.path.join(out, 'known_answers')
    with open(os.path.join(out, 'known_answers.json')) as f:
        answers = json.load(f)
    log = open(os.path.join(out, 'known_answers.log')).read()
    print(log.strip())
    check('dropped' not in log and 'no start or end time' not in log, 'no record dropped or without times')
    trace, kinds, resolution = read_trace(os.path.join(exp, 'traces.otf2'))
    gpu = gpu_intervals(trace, kinds)
    streams = sorted({loc for loc, _ in gpu})
    print('streams:', streams)
    kernels = collections.Counter()
    for _, (name, role, *_rest) in gpu:  # noqa: B007
        if role == otf2.RegionRole.FUNCTION:
            kernels[name.split('(')[0]] += 1
    for name, count in answers['kernels'].items():
        check(kernels[name] == count,
              'kernel %s: %d launches (the program made %d)' % (name, kernels[name], count))
    copies = collections.Counter(i[0] for _, i in gpu if i[1] == otf2.RegionRole.DATA_TRANSFER)
    for direction, (count, _bytes) in answers['copies'].items():
        check(copies['cudaMemcpy ' + direction] == count, 'copies %s: %d (the program made %d)' %
              (direction, copies['cudaMemcpy ' + direction], count))
    check(copies['cudaMemset'] == answers['memsets'][0], 'memsets: %d' % copies['cudaMemset'])
    total_bytes = sum(b for _, b in answers['copies'].values())
    check('copies (%d bytes)' % total_bytes in log, 'copied bytes %d in the adapter summary' % total_bytes)
    check(len(streams) >= answers['streams_used'], '%d stream locations' % len(streams))
    # Durations against CUDA events.
    # The events bracket the launch too: the first launch of a kernel also loads
    # its module (CUDA's lazy loading), so there only kernel <= events is certain.
    busy = sorted((i for _, i in gpu if i[0].startswith('busy_a')), key=lambda i: i[2])
    for n, (got, event_ms) in enumerate(zip(busy, answers['busy_a_event_ms'])):
        seconds = (got[3] - got[2]) / resolution
        event_s = event_ms / 1000
        if n == 0:
            check(seconds <= event_s + 20e-6, 'busy_a %.4f ms within CUDA events %.4f ms (first launch)' %
                  (seconds * 1e3, event_ms))
        else:
            check(abs(seconds - event_s) <= max(0.05 * event_s, 20e-6),
                  'busy_a %.4f ms against CUDA events %.4f ms' % (seconds * 1e3, event_ms))
    # Every kernel inside [launch, end of the next synchronisation] (one process: ids are unique).
    host = [(loc, i) for loc, items in trace.items() if kinds[loc] == otf2.LocationType.CPU_THREAD
            for i in items]
    launches = {i[4]: (loc, i) for loc, i in host if i[4]}
    early, late, unjoined = 0, 0, 0
    for _, (name, role, start, end, corr, _attributes) in gpu:
        if corr not in launches:
            unjoined += 1
            continue
        loc, launch = launches[corr]
        if start < launch[2]:
            early += 1
        syncs = [i for i in trace[loc] if i[0] in SYNC_CALLS and i[2] >= launch[2]]
        if syncs and end > min(s[3] for s in syncs):
            late += 1
    check(unjoined == 0, 'every GPU activity joined to its launch (%d not)' % unjoined)
    check(early == 0, 'no GPU activity starts before its launch (%d do)' % early)
    check(late == 0, 'no GPU activity ends after the synchronisation that waited for it (%d do)' % late)
    busy_attributes = [i[5] for _, i in gpu if i[0].startswith('busy_a')]
    check(busy_attributes and all(a.get('CUDA_GRID_X') == 1 and a.get('CUDA_BLOCK_X') == 32 and
                                  a.get('CUDA_REGISTERS_PER_THREAD', 0) > 0 for a in busy_attributes),
          'busy_a carries its grid (1), block (32) and registers: %s' % busy_attributes[:1])
    copy_bytes = [i[5].get('CUDA_BYTES') for _, i in gpu if i[0].startswith('cudaMemcpy')]
    check(copy_bytes and all(b == 1 << 20 for b in copy_bytes),
          'every copy carries its 1 MiB: %s' % copy_bytes[:2])
    graph = [i[5] for _, i in gpu if i[0].startswith('graph_kernel')]
    check(graph and all(a.get('CUDA_GRAPH_ID', 0) > 0 for a in graph), 'graph kernels carry their graph id')
    check(not os.path.exists(os.path.join(exp, 'losses')), 'nothing lost (no losses/ in the experiment)')
    iterations = [i for _, i in host if i[0] == 'iteration']
    check(len(iterations) == answers['iterations'], '%d NVTX "iteration" ranges' % len(iterations))


def check_torch(out, analyze):
    with open(os.path.join(out, 'torch_profiler_counts.json')) as f:
        reference = json.load(f)['kernels']
    exp = os.path.join(out, 'torch')
    print(open(os.path.join(out, 'torch.log')).read().strip()[-2000:])
    trace, kinds, _ = read_trace(os.path.join(exp, 'traces.otf2'))
    ours = collections.Counter(i[0] for _, i in gpu_intervals(trace, kinds)
                               if i[1] == otf2.RegionRole.FUNCTION)
    # With CPU activity on, torch.profiler also lists the optimizer's annotation on the GPU
    # (Optimizer.step#SGD.step): a user annotation, no kernel.
    theirs = collections.Counter({k: v for k, v in reference.items()
                                  if not k.startswith('Memcpy') and not k.startswith('Memset') and
                                  not re.fullmatch(r'[\w.]+#[\w.]+', k)})
    differ = {k: (ours.get(k, 0), theirs.get(k, 0)) for k in set(ours) | set(theirs)
              if ours.get(k) != theirs.get(k)}
    print('kernels: %d names, %d launches (torch.profiler: %d names, %d launches)' %
          (len(ours), sum(ours.values()), len(theirs), sum(theirs.values())))
    for k, (a, b) in sorted(differ.items())[:20]:
        print('  differs: %s: Strata %d, torch.profiler %d' % (k[:120], a, b))
    check(not differ, 'per-kernel launch counts equal torch.profiler\'s (%d names differ)' % len(differ))
    steps = [i for loc, items in trace.items() if kinds[loc] == otf2.LocationType.CPU_THREAD
             for i in items if i[0] == 'step']
    print('NVTX "step" ranges:', len(steps))
    an = subprocess.run([analyze, '--force', '--key-region', 'step', exp], capture_output=True, text=True)
    print(an.stdout[-3000:], an.stderr[-2000:])
    check(an.returncode == 0, 'strata-analyze ran on the torch trace')
    with open(os.path.join(exp, 'analysis', 'iterations.csv')) as f:
        iterations = list(csv.DictReader(f))
    # DLProf's rule: N key-region instances cut N + 1 iterations.
    check(len(iterations) == len(steps) + 1 and len(steps) > 0, '%d iterations for %d "step" ranges' %
          (len(iterations), len(steps)))
    with open(os.path.join(exp, 'analysis', 'gpu_kernels.csv')) as f:
        rows = list(csv.DictReader(f))
    gemms = [r for r in rows if any(p in r['kernel'].lower() for p in ('gemm', 'nvjet', 'xmma', 'gmma'))]
    for r in gemms[:8]:
        print('  GEMM kernel: tensor_core=%s count=%s %s' % (r['tensor_core'], r['count'], r['kernel'][:100]))
    bf16 = [r for r in gemms if 'nvjet' in r['kernel'].lower() or 'bf16' in r['kernel'].lower()]
    fp32 = [r for r in gemms if '_ffma_' in r['kernel'].lower() or 'simt' in r['kernel'].lower()]
    check(bf16 and all(r['tensor_core'] == '1' for r in bf16),
          'the bf16 GEMMs are flagged as Tensor Core kernels')
    check(all(r['tensor_core'] == '0' for r in fp32), 'the fp32 FMA GEMMs are not')
    unjoined = [r for r in rows if r['callpath'] == '(launch not recorded)']
    check(not unjoined, 'every kernel has its launching call path (%d do not: %s)' %
          (len(unjoined), [r['kernel'][:60] for r in unjoined]))
    zero = [r for r in rows if float(r['total_s']) == 0]
    check(not zero, 'no kernel has zero time (%d do)' % len(zero))
    per_step = {}
    for name in ('torch_plain', 'torch_strata', 'torch_api_only', 'torch_plain2'):
        if not os.path.exists(os.path.join(out, name + '.json')):
            continue
        with open(os.path.join(out, name + '.json')) as f:
            per_step[name] = json.loads(f.read().strip().splitlines()[-1])['seconds_per_step']
    plain = (per_step['torch_plain'] + per_step['torch_plain2']) / 2
    print('seconds per step: plain %.6f / %.6f, Strata %.6f: overhead %+.1f %%' %
          (per_step['torch_plain'], per_step['torch_plain2'], per_step['torch_strata'],
           100 * (per_step['torch_strata'] / plain - 1)))
    if 'torch_api_only' in per_step:
        print('seconds per step, API calls and NVTX only: %.6f: overhead %+.1f %%' %
              (per_step['torch_api_only'], 100 * (per_step['torch_api_only'] / plain - 1)))
    with open(os.path.join(exp, 'analysis', 'summary.txt')) as f:
        summary = f.read()
    step_part = summary[summary.find('Step trace'):]
    print(step_part[:step_part.find('\n\n')] if 'Step trace' in summary else 'no step trace in the summary')
    check('Step trace' in summary, 'the step trace of the PyTorch loop')
    check_ops(out, analyze)
    check_gpu_metrics(out)
    emit = os.path.join(out, 'torch_emit_nvtx', 'traces.otf2')
    if os.path.exists(emit):
        t, k, _ = read_trace(emit)
        ranges = collections.Counter(i[0] for loc, items in t.items()
                                     if k[loc] == otf2.LocationType.CPU_THREAD
                                     for i in items if i[1] == otf2.RegionRole.CODE)
        print('emit_nvtx: %d NVTX ranges of %d names, e.g. %s' % (sum(ranges.values()), len(ranges),
                                                                 [n for n, _ in ranges.most_common(5)]))
        check(sum(ranges.values()) > 0, 'emit_nvtx ranges recorded')


def check_gpu_metrics(out):
    """GPU metrics sampled through NVML every 50 ms in the torch run (STRATA_CUDA_SAMPLING_INTERVAL)."""
    exp = os.path.join(out, 'torch')
    samples = collections.defaultdict(list)  # (location, member) -> [(time, value)]
    with otf2.reader.open(os.path.join(exp, 'traces.otf2')) as trace:
        resolution = trace.definitions.clock_properties.timer_resolution
        metric_locations = [l.name for l in trace.definitions.locations if l.type == otf2.LocationType.METRIC]
        for location, e in trace.events:
            if isinstance(e, otf2.events.Metric) and location.type == otf2.LocationType.METRIC:
                for member, value in zip(e.metric.members, e.values):
                    samples[(location.name, member.name)].append((e.time, value))
    print('GPU metric locations:', metric_locations)
    check(metric_locations == ['GPU[0] metrics'], 'one GPU metric location, for the one GPU used')
    for (location, member), values in sorted(samples.items()):
        v = [x for _, x in values]
        print('  %s %s: %d samples, min %d, max %d' % (location, member, len(v), min(v), max(v)))
    utilization = samples.get(('GPU[0] metrics', 'gpu_utilization'), [])
    check(len(utilization) >= 5, '%d utilisation samples' % len(utilization))
    if len(utilization) >= 3:
        gaps = sorted((b[0] - a[0]) / resolution for a, b in zip(utilization, utilization[1:]))
        median = gaps[len(gaps) // 2]
        print('  median time between samples: %.1f ms' % (median * 1e3))
        check(0.04 < median < 0.07, 'samples about every 50 ms (median %.1f ms)' % (median * 1e3))
    check(max((v for _, v in utilization), default=0) > 0, 'the GPU was busy in some sample')
    for member in ('gpu_memory_used', 'gpu_sm_clock', 'gpu_power'):
        values = [v for _, v in samples.get(('GPU[0] metrics', member), [])]
        check(values and min(values) > 0, '%s reported and above 0 in every sample' % member)
    csv_path = os.path.join(exp, 'analysis', 'gpu_metrics.csv')
    if os.path.exists(csv_path):
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == len(utilization), 'gpu_metrics.csv: a row per sample (%d)' % len(rows))


def check_ops(out, analyze):
    """The ops view (DLProf) of the emit_nvtx run against torch.profiler's operator table."""
    exp = os.path.join(out, 'torch_emit_nvtx')
    if not os.path.exists(os.path.join(exp, 'traces.otf2')):
        check(False, 'the emit_nvtx run wrote a trace')
        return
    an = subprocess.run([analyze, '--force', '--key-region', 'step', exp], capture_output=True, text=True)
    check(an.returncode == 0, 'strata-analyze ran on the emit_nvtx trace')
    with open(os.path.join(exp, 'analysis', 'ops.csv')) as f:
        ops = {r['op']: r for r in csv.DictReader(f)}
    with open(os.path.join(out, 'torch_profiler_counts.json')) as f:
        counts = json.load(f)
    reference = counts.get('ops', {})
    # emit_nvtx covers the timed steps only; torch.profiler the warm-up steps too: compare per step.
    with open(os.path.join(out, 'torch_emit_nvtx.json')) as f:
        our_steps = json.loads(f.read().strip().splitlines()[-1])['steps']
    their_steps = counts['steps']
    top = sorted(ops.values(), key=lambda r: -float(r['gpu_s']))[:8]
    print('%-28s %8s %10s %6s %6s | torch.profiler: %8s %12s %12s' %
          ('op', 'calls', 'gpu_us', 'tc', 'elig', 'calls', 'device_us', 'self_dev_us'))
    for r in top:
        t = reference.get(r['op'], {})
        print('%-28s %8s %10.1f %6s %6s | %24s %12s %12s' %
              (r['op'][:28], r['calls'], float(r['gpu_s']) * 1e6, r['uses_tc'], r['tc_eligible'],
               t.get('calls', '-'), '%.1f' % t['device_us'] if t else '-',
               '%.1f' % t['self_device_us'] if t else '-'))
    check(bool(reference), 'torch.profiler\'s operator table was recorded')
    for name in ('aten::mm', 'aten::addmm'):
        if name in ops and name in reference:
            ours, theirs = int(ops[name]['calls']) / our_steps, reference[name]['calls'] / their_steps
            check(ours == theirs, '%s: %g calls per step, torch.profiler %g' % (name, ours, theirs))
            ours = float(ops[name]['gpu_s']) * 1e6 / our_steps
            theirs = reference[name]['device_us'] / their_steps
            check(abs(ours / theirs - 1) < 0.1, '%s: %.1f us of GPU time per step, torch.profiler %.1f' %
                  (name, ours, theirs))
    check(ops.get('aten::mm', {}).get('uses_tc') == '1', 'aten::mm (the bf16 products) uses Tensor Cores')


def check_gpu_streams(out, analyze):
    """The MPI + CUDA example: each rank's relax kernels take (rank + 1) times rank 0's."""
    exp = os.path.join(out, 'gpu_streams')
    log = open(os.path.join(out, 'gpu_streams.log')).read()
    print(log.strip()[-1500:])
    if not os.path.exists(os.path.join(exp, 'traces.otf2')):
        check(False, 'the MPI + CUDA example wrote a trace')
        return
    trace, kinds, resolution = read_trace(os.path.join(exp, 'traces.otf2'))
    relax = collections.defaultdict(float)
    for loc, items in trace.items():
        if kinds[loc] != otf2.LocationType.ACCELERATOR_STREAM:
            continue
        for name, _, start, end, *_ in items:
            if 'relax(' in name:
                relax[loc] += (end - start) / resolution
    print('relax seconds per stream location:', dict(relax))
    ranks = 2 if 'no mpirun' not in log else 1
    check(len(relax) == ranks, 'relax kernels on %d stream(s), one per rank' % len(relax))
    metric_locations = sorted(loc for loc, kind in kinds.items() if kind == otf2.LocationType.METRIC)
    check(len(metric_locations) == ranks and all(l.endswith('/GPU[0] metrics') for l in metric_locations),
          'each rank samples the GPU it uses (STRATA_CUDA_SAMPLING_INTERVAL): %s' % metric_locations)
    an = subprocess.run([analyze, '--force', exp], capture_output=True, text=True)
    check(an.returncode == 0, 'strata-analyze ran on the example')
    with open(os.path.join(exp, 'analysis', 'gpu.csv')) as f:
        rows = [r for r in csv.DictReader(f) if r['scope'] == 'rank']
    busy = sorted(float(r['busy_s']) for r in rows)
    print('busy per rank:', busy)
    if ranks == 2 and len(busy) == 2:
        check(1.6 < busy[1] / busy[0] < 2.4, 'rank 1 keeps its GPU about twice as busy as rank 0 (%.2f)' %
              (busy[1] / busy[0]))
    with open(os.path.join(exp, 'analysis', 'iterations.csv')) as f:
        iterations = list(csv.DictReader(f))
    check(len(iterations) == 11, '10 NVTX strata.phase ranges cut 11 iterations (%d)' % len(iterations))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--analyze', required=True)
    args = ap.parse_args()
    print(open(os.path.join(args.out, 'environment.txt')).read())
    # A run of some parts only (GPU_CHECK_PARTS) is verified in those parts.
    if os.path.exists(os.path.join(args.out, 'known_answers.log')):
        check_known_answers(args.out)
    if os.path.exists(os.path.join(args.out, 'gpu_streams.log')):
        check_gpu_streams(args.out, args.analyze)
    if os.path.exists(os.path.join(args.out, 'torch.log')):
        check_torch(args.out, args.analyze)


if __name__ == '__main__':
    main()
    if failures:
        print('%d check(s) failed' % len(failures))
        sys.exit(1)
