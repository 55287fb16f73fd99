// SPDX-License-Identifier: BSD-3-Clause
// OTF2's event-file format as both sides of Strata use it: the numbers of the
// record kinds in OTF2's buffer format (OTF2_Events.h and OTF2_Buffer.h
// number them so, from OTF2 1.0 to 3.0) and which of them are OTF2 1.0's
// "singletons" (one compressed field, no length).  The direct writer
// (measurement/src/tracing/otf2_event_file.*) encodes with them, the
// analysis' decoder (analysis/trace/event_file.*) reads with them; the tests
// of both check them against OTF2's own writer and reader.  Header-only: the
// analysis shares it without linking the runtime.
#pragma once

#include <cstdint>

namespace strata::otf2_format {

/// The record kinds either side uses.
enum Record : std::uint8_t {
    // The buffer's own records.
    end_of_chunk = 0,
    end_of_buffer = 1,
    end_of_file = 2,
    chunk_header = 3,
    timestamp = 5,
    attribute_list = 6,
    first_event = 10,  ///< event kinds start here
    // Events.
    measurement_on_off = 11,
    enter = 12,
    leave = 13,
    mpi_send = 14,
    mpi_isend = 15,
    mpi_isend_complete = 16,
    mpi_irecv_request = 17,
    mpi_recv = 18,
    mpi_irecv = 19,
    mpi_request_test = 20,
    mpi_request_cancelled = 21,
    mpi_collective_begin = 22,
    mpi_collective_end = 23,
    omp_fork = 24,
    omp_task_create = 28,
    omp_task_switch = 29,
    omp_task_complete = 30,
    metric = 31,
    parameter_string = 32,
    parameter_int = 33,
    thread_fork = 53,
    thread_join = 54,
    thread_team_begin = 55,
    thread_team_end = 56,
    thread_task_create = 59,
    thread_task_switch = 60,
    thread_task_complete = 61,
    nonblocking_collective_request = 85,
    nonblocking_collective_complete = 86,
};

/// The second byte of a chunk header: the file was written on a little-endian machine.
inline constexpr std::uint8_t little_endian = 0x42;

/// True for the kinds OTF2 writes as singletons (one compressed field, no length).
constexpr bool is_singleton(std::uint8_t kind) {
    switch (kind) {
        case enter:
        case leave:
        case mpi_isend_complete:
        case mpi_irecv_request:
        case mpi_request_test:
        case mpi_request_cancelled:
        case omp_fork:
        case omp_task_create:
        case omp_task_switch:
        case omp_task_complete: return true;
        default: return false;
    }
}

}  // namespace strata::otf2_format
