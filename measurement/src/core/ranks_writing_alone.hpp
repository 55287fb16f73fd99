// SPDX-License-Identifier: BSD-3-Clause
// Ranks of an MPI job that write their experiments alone after a termination
// request (mpirun's SIGTERM once another rank failed) keep each other alive
// until they have all written.
//
// Why: a launcher kills the job's remaining processes (SIGKILL) soon after the
// first of them exits, well before its own grace period ends (Open MPI 4:
// odls_base_sigkill_timeout, 1 s by default).  A rank that wrote a small
// experiment in 20 ms and exited got its slower siblings killed halfway
// through theirs.  So each rank marks, per host, that it is writing, and after
// writing waits while a sibling on its host still does: all of them then have
// the launcher's whole grace period.
#pragma once

#include <string>

namespace strata::ranks_writing_alone {

/// Marks that `rank` of the job whose directory is `job_directory` writes its
/// experiment alone: the file <job_directory>/writing-<host>/<rank> holding
/// this process's id.  Returns the marker's path ("" when it could not be made:
/// nothing waits for this rank then).
std::string begin(const std::string& job_directory, int rank);

/// The rank has written: removes its marker (and the host's directory when it
/// was the last).
void end(const std::string& marker);

/// Waits while a rank of this host marked by begin() is still alive and
/// writing: at least `at_least_ms` (siblings signalled at the same moment may
/// not have begun yet), at most `at_most_ms`.
void wait_for_siblings(const std::string& job_directory, int at_least_ms, int at_most_ms);

/// The name of the per-host directory of markers ("writing-<host>").
std::string host_directory_name();

}  // namespace strata::ranks_writing_alone
