// SPDX-License-Identifier: BSD-3-Clause
#include "strata/measurement/types.hpp"

namespace strata {

const char* to_string(Paradigm p) {
    switch (p) {
        case Paradigm::user: return "user";
        case Paradigm::compiler: return "compiler";
        case Paradigm::mpi: return "mpi";
        case Paradigm::openmp: return "openmp";
        case Paradigm::cuda: return "cuda";
        case Paradigm::measurement: return "measurement";
        case Paradigm::unknown: break;
    }
    return "unknown";
}

const char* to_string(RegionRole r) {
    switch (r) {
        case RegionRole::function: return "function";
        case RegionRole::code: return "code";
        case RegionRole::loop: return "loop";
        case RegionRole::wrapper: return "wrapper";
        case RegionRole::parallel: return "parallel";
        case RegionRole::barrier: return "barrier";
        case RegionRole::implicit_barrier: return "implicit_barrier";
        case RegionRole::point_to_point: return "point_to_point";
        case RegionRole::coll_one2all: return "coll_one2all";
        case RegionRole::coll_all2one: return "coll_all2one";
        case RegionRole::coll_all2all: return "coll_all2all";
        case RegionRole::coll_other: return "coll_other";
        case RegionRole::artificial: return "artificial";
        case RegionRole::sections: return "sections";
        case RegionRole::section: return "section";
        case RegionRole::single: return "single";
        case RegionRole::single_sblock: return "single_sblock";
        case RegionRole::master: return "master";
        case RegionRole::critical: return "critical";
        case RegionRole::critical_sblock: return "critical_sblock";
        case RegionRole::atomic: return "atomic";
        case RegionRole::ordered: return "ordered";
        case RegionRole::ordered_sblock: return "ordered_sblock";
        case RegionRole::task: return "task";
        case RegionRole::task_create: return "task_create";
        case RegionRole::task_wait: return "task_wait";
        case RegionRole::workshare: return "workshare";
        case RegionRole::lock: return "lock";
        case RegionRole::file_io: return "file_io";
        case RegionRole::data_transfer: return "data_transfer";
        case RegionRole::unknown: break;
    }
    return "unknown";
}

}  // namespace strata
