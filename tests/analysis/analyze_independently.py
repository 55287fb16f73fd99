#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""End to end: each program is measured with tracing on 4 ranks and analysed
by strata-analyze on 2 analysis ranks; then independent_wait_states.py
computes the wait states from the trace with the OTF2 Python bindings alone,
and strata-analyze's waitstates.csv must agree with it, metric by metric.

    analyze_independently.py --program PROG [--program PROG ...] --analyze STRATA_ANALYZE
                             --mpirun MPIRUN --work-dir DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

from e2e_support import Checks  # this folder: Python puts the script's own first on the path

CHECKS = Checks('analyze_independently')
fail, environment, run = CHECKS.fail, CHECKS.environment, CHECKS.run
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--program', required=True, action='append')
    parser.add_argument('--analyze', required=True)
    parser.add_argument('--mpirun', required=True)
    parser.add_argument('--work-dir', required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    for program in args.program:
        name = os.path.basename(program)
        experiment = os.path.join(args.work_dir, name)
        run([args.mpirun, '-np', '4', '--oversubscribe', program], cwd=args.work_dir,
            env=environment({'STRATA_EXPERIMENT_DIRECTORY': experiment, 'STRATA_ENABLE_TRACING': 'true'}))
        run([args.mpirun, '-np', '2', '--oversubscribe', args.analyze, experiment], cwd=args.work_dir,
            env=environment())
        # The same interpreter: it has the OTF2 bindings (CMake chose it for that).
        check = subprocess.run([sys.executable, os.path.join(HERE, 'independent_wait_states.py'),
                                os.path.join(experiment, 'traces.otf2'),
                                os.path.join(experiment, 'analysis', 'waitstates.csv')],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=240)
        print('%s:\n%s' % (name, check.stdout))
        if check.returncode != 0:
            fail('%s: strata-analyze and the independent computation disagree (above)' % name)
        if 'instances' not in check.stdout:
            fail('%s: the independent computation printed nothing' % name)


if __name__ == '__main__':
    main()
