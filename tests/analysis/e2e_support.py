# SPDX-License-Identifier: BSD-3-Clause
"""What the end-to-end analysis tests (analyze_heat.py, analyze_late_sender.py)
share: failing with the test's name, the environment of an MPI run as root
without the caller's STRATA_ settings, and running a command that must succeed."""
import os
import subprocess
import sys


class Checks:
    def __init__(self, name):
        self.name = name

    def fail(self, message):
        sys.exit('%s: %s' % (self.name, message))

    @staticmethod
    def environment(extra=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith('STRATA_')}
        env.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'})
        env.update(extra or {})
        return env

    def run(self, command, cwd, env):
        done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=240)
        if done.returncode != 0:
            self.fail('%s exited with %d\nstdout:\n%s\nstderr:\n%s'
                      % (command, done.returncode, done.stdout, done.stderr))
        return done.stdout
