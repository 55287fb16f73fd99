#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""End to end: each program is measured with tracing on 4 ranks and analysed
by strata-analyze on 2 analysis ranks.  Then three scripts of this folder
compute figures again without any Strata code, and strata-analyze's reports
must agree with them: independent_wait_states.py the wait states from the
trace (OTF2 Python bindings; waitstates.csv), independent_iterations.py the
iterations of the phase region from the trace (iterations.csv),
independent_pop.py the time classes, wall and run time and the POP
efficiencies from profile.h5 (h5py; summary.csv, and the region rows of
loadbalance.csv).

    analyze_independently.py --program "PROG [ARG...]" [--program ...] --analyze STRATA_ANALYZE
                             --mpirun MPIRUN --work-dir DIR
"""
import argparse
import os
import shlex
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
        command = shlex.split(program)
        name = os.path.basename(command[0])
        experiment = os.path.join(args.work_dir, name)
        run([args.mpirun, '-np', '4', '--oversubscribe'] + command, cwd=args.work_dir,
            env=environment({'STRATA_EXPERIMENT_DIRECTORY': experiment, 'STRATA_ENABLE_TRACING': 'true'}))
        run([args.mpirun, '-np', '2', '--oversubscribe', args.analyze, experiment], cwd=args.work_dir,
            env=environment())
        for script, data, report in (('independent_wait_states.py', 'traces.otf2', 'waitstates.csv'),
                                     ('independent_iterations.py', 'traces.otf2', 'iterations.csv'),
                                     ('independent_pop.py', 'profile.h5', '')):
            # The same interpreter: it has the OTF2 bindings and h5py (CMake chose it for that).
            check = subprocess.run([sys.executable, os.path.join(HERE, script), os.path.join(experiment, data),
                                    os.path.join(experiment, 'analysis', report)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True, timeout=240)
            print('%s, %s:\n%s' % (name, script, check.stdout))
            if check.returncode != 0:
                fail('%s: %s disagrees with strata-analyze (above)' % (name, script))
            if script != 'independent_iterations.py' and check.stdout.count('strata-analyze') < 6:
                fail('%s: %s compared too little' % (name, script))
            if script == 'independent_iterations.py' and 'iteration=0 ' not in check.stdout:
                fail('%s: %s compared no iteration' % (name, script))


if __name__ == '__main__':
    main()
