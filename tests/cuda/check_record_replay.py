#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs programs/record_replay.cpp under Strata and checks what its CUDA 13
activity records became, with independent readers: the OTF2 trace with the
OTF2 Python bindings (stream locations, their CUDA_DEVICE, regions, roles,
converted times, correlation ids), profile.h5 with h5dump (stream locations
as columns, kernel time under the stream), and strata-analyze's GPU reports
(the kernel joined to the host call path that launched it).

    check_record_replay.py --program P --analyze A --work DIR
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

import otf2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'integration'))
import experiment_reader  # noqa: E402

failures = []


def check(condition, message):
    print(('ok: ' if condition else 'FAILED: ') + message)
    if not condition:
        failures.append(message)


def near(value, expected, tolerance=2000):
    return abs(value - expected) <= tolerance


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--program', required=True)
    ap.add_argument('--analyze', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    exp = os.path.join(args.work, 'exp')
    env = dict(os.environ, STRATA_ENABLE_TRACING='1', STRATA_ENABLE_PROFILING='1',
               STRATA_TIMER='clock_gettime', STRATA_EXPERIMENT_DIRECTORY=exp)
    run = subprocess.run([args.program], env=env, capture_output=True, text=True, timeout=60)
    print(run.stdout + run.stderr)
    check(run.returncode == 0, 'the program ran (exit %d)' % run.returncode)
    if run.returncode != 0:
        return
    t0 = json.loads(run.stdout.strip().splitlines()[-1])['t0']
    check('3 GPU activity records dropped by CUPTI' in run.stderr and
          'STRATA_CUDA_BUFFER_SIZE' in run.stderr,
          'the dropped records are counted and the setting to raise named')
    check('1 GPU activity records without a start or end time' in run.stderr,
          'the kernel without a start is counted')
    check('1 CUPTI activity records of kind 11, which this adapter does not know' in run.stderr,
          'the unknown record kind is named')
    losses = open(os.path.join(exp, 'losses', 'rank-0.tsv')).read().splitlines()
    print('losses/rank-0.tsv:', losses)
    check(any(l.startswith('GPU activity records dropped by CUPTI') and l.split('\t')[1] == '3' and
              'STRATA_CUDA_BUFFER_SIZE' in l.split('\t')[2] for l in losses),
          'the dropped records are written into the experiment with the setting to raise')
    check(len(losses) == 3, 'three kinds of loss in the experiment')

    # --- the trace ----------------------------------------------------------------
    with otf2.reader.open(os.path.join(exp, 'traces.otf2')) as trace:
        d = trace.definitions
        streams = {l.name: l for l in d.locations if l.type == otf2.LocationType.ACCELERATOR_STREAM}
        check(sorted(streams) == ['CUDA[0:13]', 'CUDA[0:7]', 'CUDA[0:7]/2', 'CUDA[1:7]'],
              'two streams of GPU 0, one with a second location for overlapping work, and GPU 1\'s stream '
              'of the same number apart: %s' % sorted(streams))
        check(all((l._ref & 0xffffffff) >= 0x10000 for l in streams.values()), 'stream ids from 0x10000 up')
        threads = [l for l in d.locations if l.type == otf2.LocationType.CPU_THREAD]
        check(all(l.group == threads[0].group for l in streams.values()), 'the streams belong to the rank')
        devices = {p.location.name: p.value for p in d.location_properties if p.name == 'CUDA_DEVICE'}
        stream_devices = {name: device for name, device in devices.items() if name in streams}
        check(stream_devices == {'CUDA[0:7]': 0, 'CUDA[0:7]/2': 0, 'CUDA[0:13]': 0, 'CUDA[1:7]': 1},
              'CUDA_DEVICE of every stream: %s' % stream_devices)
        correlation = [a for a in d.attributes if a.name == 'CUDA_CORRELATION_ID']
        check(len(correlation) == 1 and correlation[0].type == otf2.Type.UINT64,
              'the attribute CUDA_CORRELATION_ID')
        metric_locations = {l.name: l for l in d.locations if l.type == otf2.LocationType.METRIC}
        check(sorted(metric_locations) == ['GPU[0] metrics', 'GPU[1] metrics'],
              'a location of type METRIC per sampled GPU: %s' % sorted(metric_locations))
        check(all(l.group == threads[0].group for l in metric_locations.values()),
              'the GPU metric locations belong to the rank')
        members = {m.name: m for m in d.metric_members}
        check(all(name in members and members[name].unit == unit for name, unit in
                  [('gpu_utilization', '%'), ('gpu_memory_utilization', '%'), ('gpu_memory_used', 'bytes'),
                   ('gpu_power', 'mW'), ('gpu_sm_clock', 'MHz')]),
              'the five GPU metric members with their units: %s' % {n: m.unit for n, m in members.items()})
        per_location = {}
        samples = {}  # location -> [(time, member, value)]
        for location, event in trace.events:
            per_location.setdefault(location.name, []).append(event)
            if isinstance(event, otf2.events.Metric):
                for member, value in zip(event.metric.members, event.values):
                    samples.setdefault(location.name, []).append((event.time, member.name, value))
        check(devices.get('GPU[0] metrics') == 0 and devices.get('GPU[1] metrics') == 1,
              'CUDA_DEVICE of the GPU metric locations')

    def series(location, member):
        return [v for t, m, v in samples.get(location, []) if m == member]
    check(series('GPU[0] metrics', 'gpu_utilization') == [10, 20, 30] and
          series('GPU[1] metrics', 'gpu_utilization') == [11, 21],
          'utilisation of GPU 0 at its three samples and of GPU 1 at its two: %s, %s' %
          (series('GPU[0] metrics', 'gpu_utilization'), series('GPU[1] metrics', 'gpu_utilization')))
    check(series('GPU[0] metrics', 'gpu_memory_used') == [1 << 30] * 3 and
          series('GPU[1] metrics', 'gpu_memory_used') == [2 << 30] * 2, 'memory used per GPU')
    check(series('GPU[0] metrics', 'gpu_power') == [150000] * 3 and not series('GPU[1] metrics', 'gpu_power'),
          'power of GPU 0; none for GPU 1, whose board does not report it (absent, not 0)')
    check(series('GPU[0] metrics', 'gpu_sm_clock') == [1980] * 3, 'the SM clock')
    times = [t for t, m, v in samples.get('GPU[0] metrics', [])]
    check(times == sorted(times) and len(set(times)) == 3, 'three sample times on GPU 0, in order')

    def intervals(name):
        out, open_ = [], []
        for e in per_location.get(name, []):
            if isinstance(e, otf2.events.Enter):
                attributes = {a.name: v for a, v in e.attributes.items()} if e.attributes else {}
                open_.append((e.region, e.time, attributes))
            elif isinstance(e, otf2.events.Leave):
                region, start, attributes = open_.pop()
                check(region == e.region, '%s: a Leave matches its Enter' % name)
                out.append((region.name, region.region_role, region.paradigm, start, e.time,
                            attributes.get('CUDA_CORRELATION_ID', 0), attributes))
        return out

    s7 = intervals('CUDA[0:7]')
    check([i[0] for i in s7] == ['init(float*)', 'saxpy(float, float*, float*)', 'cudaMemcpy HtoD'],
          'stream 7 in time order, names demangled: %s' % [i[0] for i in s7])
    expected = [(1000, 5000, 40), (10000, 60000, 41), (70000, 80000, 42)]
    for got, (start, end, corr) in zip(s7, expected):
        check(near(got[3], t0 + start) and near(got[4], t0 + end),
              '%s at +%d..%d ns (got +%d..%d)' % (got[0], start, end, got[3] - t0, got[4] - t0))
        check(got[5] == corr, '%s carries correlation %d (got %d)' % (got[0], corr, got[5]))
        check(got[2] == otf2.Paradigm.CUDA, '%s has paradigm CUDA' % got[0])
    check(s7 and s7[0][1] == otf2.RegionRole.FUNCTION and s7[2][1] == otf2.RegionRole.DATA_TRANSFER,
          'kernels are functions, copies data transfers')
    if len(s7) == 3:
        kernel, copy = s7[1][6], s7[2][6]
        check(kernel.get('CUDA_GRID_X') == 128 and kernel.get('CUDA_BLOCK_X') == 256 and
              kernel.get('CUDA_REGISTERS_PER_THREAD') == 32 and kernel.get('CUDA_SHARED_MEMORY') == 0,
              'the kernel\'s grid, block, registers and shared memory as attributes: %s' % kernel)
        check(copy.get('CUDA_BYTES') == 4096 and 'CUDA_GRID_X' not in copy, 'the copy\'s bytes: %s' % copy)
    overlap = intervals('CUDA[0:7]/2')
    check([i[0] for i in overlap] == ['next()'] and near(overlap[0][3], t0 + 55000) and
          near(overlap[0][4], t0 + 65000) and overlap[0][5] == 46,
          'the kernel overlapping saxpy keeps its times, on the second location: %s' % overlap)
    s13 = intervals('CUDA[0:13]')
    check([(i[0], i[1]) for i in s13] == [('cudaMemset', otf2.RegionRole.DATA_TRANSFER)],
          'stream 13: the memset')
    check(s13 and near(s13[0][3], t0 + 20000) and near(s13[0][4], t0 + 25000), 'the memset at +20..25 us')
    check(s13 and s13[0][6].get('CUDA_BYTES') == 1024, 'the memset\'s bytes')
    second = intervals('CUDA[1:7]')
    check([(i[0], i[1]) for i in second] == [('halo()', otf2.RegionRole.FUNCTION),
                                             ('cudaMemcpy PtoP', otf2.RegionRole.DATA_TRANSFER)],
          'GPU 1\'s stream 7: its kernel, then the peer copy: %s' % [i[0] for i in second])
    if len(second) == 2:
        check(near(second[0][3], t0 + 15000) and near(second[0][4], t0 + 45000) and
              near(second[1][3], t0 + 50000) and near(second[1][4], t0 + 58000),
              'GPU 1\'s work at +15..45 and +50..58 us')
        check(second[1][6].get('CUDA_BYTES') == 8192 and second[1][5] == 47,
              'the peer copy\'s bytes and correlation: %s' % second[1][6])
    host = [i for name, events in per_location.items() if name not in streams for i in intervals(name)
            if i[0] == 'cudaLaunchKernel']
    check(len(host) == 1 and host[0][5] == 41, 'the launching host call carries correlation 41')
    if host and len(s7) > 1:
        check(host[0][3] <= s7[1][3], 'saxpy starts after the call that launched it')
    check(all('lost' not in i[0] for i in s7), 'the kernel without a start time is not recorded')

    # --- the profile (h5dump) ------------------------------------------------------
    profile = experiment_reader.read_profile(os.path.join(exp, 'profile.h5'))
    ids = profile['location_ids']
    stream_columns = [k for k, i in enumerate(ids) if (i & 0xffffffff) >= 0x10000]
    check(len(stream_columns) == 4, 'profile.h5 has a column per stream location, none for GPU metrics '
          '(ids %s)' % ids)
    time_inclusive = dict(zip(profile['paths'], profile['metrics']['time_inclusive']))
    saxpy = time_inclusive.get('cudaLaunchKernel/saxpy(float, float*, float*)')
    check(saxpy is not None and any(near(saxpy[k] * 1e9, 50000, 2000) for k in stream_columns),
          'saxpy: 50 us on its stream, under the call path that launched it (%s)' % saxpy)
    visits = dict(zip(profile['paths'], profile['metrics']['visits']))
    launch = visits.get('cudaLaunchKernel', [])
    check(launch and sum(launch[k] for k in stream_columns) == 0 and sum(launch) == 1,
          'the launch is visited once, on its thread; the stream only inherits it (%s)' % launch)
    check('init(float*)' in time_inclusive, 'work without a recorded launch at the stream\'s root')

    # --- the analysis ----------------------------------------------------------------
    an = subprocess.run([args.analyze, exp], capture_output=True, text=True, timeout=60)
    check(an.returncode == 0, 'strata-analyze ran (exit %d)' % an.returncode)
    # trace.json by the rules of the format (the kernel's launch is a flow from the host call).
    trace_json = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                                               'analysis', 'check_trace_json.py'),
                                 os.path.join(exp, 'analysis', 'trace.json')], capture_output=True, text=True)
    print(trace_json.stdout)
    check(trace_json.returncode == 0 and ' 1 flows' in trace_json.stdout,
          'trace.json follows the format\'s rules, with the launch as a flow')
    with open(os.path.join(exp, 'analysis', 'gpu_kernels.csv')) as f:
        kernels = {r['kernel']: r for r in csv.DictReader(f)}
    check(kernels.get('saxpy(float, float*, float*)', {}).get('callpath', '').endswith('cudaLaunchKernel'),
          'the analysis gives saxpy to the call path of its launch: %s' % kernels)
    with open(os.path.join(exp, 'analysis', 'gpu.csv')) as f:
        device = sorted((r for r in csv.DictReader(f) if r['scope'] == 'device'), key=lambda r: r['device'])
    check(len(device) == 2 and device[0]['kernels'] == '3' and device[0]['streams'] == '3',
          'two devices; GPU 0: 3 kernels on 3 stream locations: %s' % device)
    if len(device) == 2:
        check(device[1]['device'] == '1' and device[1]['kernels'] == '1' and device[1]['streams'] == '1' and
              abs(float(device[1]['busy_s']) - 30e-6) < 2e-6 and abs(float(device[1]['copy_ptop_s']) - 8e-6) < 2e-6,
              'GPU 1 apart: 1 kernel, busy 30 us, 8 us of peer copy')
    if device:
        check(abs(float(device[0]['busy_s']) - 59e-6) < 2e-6,
              'busy: the union of the kernels, 4 + 55 us less their overlap (%s s)' % device[0]['busy_s'])
    if device:
        check(abs(float(device[0]['copy_htod_s']) - 10e-6) < 2e-6 and
              abs(float(device[0]['memset_s']) - 5e-6) < 2e-6,
              'the copy and the memset times per kind')


if __name__ == '__main__':
    main()
    if failures:
        print('%d check(s) failed' % len(failures))
        sys.exit(1)
