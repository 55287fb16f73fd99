// SPDX-License-Identifier: BSD-3-Clause
// The MPI reductions of strata-analyze (see mpi_reduction.hpp).
#include "analyze/mpi_reduction.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace strata::analysis {
namespace {

static_assert(sizeof(WideSum) == 2 * sizeof(std::uint64_t), "a 128-bit sum travels as two uint64");
static_assert(sizeof(Extremes) == 4 * extreme_count * sizeof(std::int64_t),
              "Extremes must be int64 fields only");
static_assert(sizeof(long) == sizeof(std::int64_t), "ValueRank holds nanoseconds in a long (MPI_LONG_INT)");

/// Owns a committed MPI datatype.
class Datatype {
public:
    Datatype(int count, MPI_Datatype element) {
        MPI_Type_contiguous(count, element, &type_);
        MPI_Type_commit(&type_);
    }
    ~Datatype() { MPI_Type_free(&type_); }
    Datatype(const Datatype&) = delete;
    Datatype& operator=(const Datatype&) = delete;
    MPI_Datatype get() const { return type_; }

private:
    MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// Owns a commutative user operation.
class Operation {
public:
    explicit Operation(MPI_User_function* function) { MPI_Op_create(function, 1, &op_); }
    ~Operation() { MPI_Op_free(&op_); }
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;
    MPI_Op get() const { return op_; }

private:
    MPI_Op op_ = MPI_OP_NULL;
};

// The buffers MPI hands a user operation need not be aligned for the
// element type, hence memcpy in and out.

void sum_wide(void* in, void* inout, int* length, MPI_Datatype*) {
    for (int i = 0; i < *length; ++i) {
        WideSum a, b;
        std::memcpy(&a, static_cast<const char*>(in) + i * sizeof(WideSum), sizeof a);
        std::memcpy(&b, static_cast<char*>(inout) + i * sizeof(WideSum), sizeof b);
        b += a;
        std::memcpy(static_cast<char*>(inout) + i * sizeof(WideSum), &b, sizeof b);
    }
}

void merge_extremes_op(void* in, void* inout, int* length, MPI_Datatype*) {
    for (int i = 0; i < *length; ++i) {
        Extremes a, b;
        std::memcpy(&a, static_cast<const char*>(in) + i * sizeof(Extremes), sizeof a);
        std::memcpy(&b, static_cast<char*>(inout) + i * sizeof(Extremes), sizeof b);
        merge_extremes(b, a);
        std::memcpy(static_cast<char*>(inout) + i * sizeof(Extremes), &b, sizeof b);
    }
}

int count_of(std::size_t size) {
    if (size > static_cast<std::size_t>(INT_MAX))
        throw std::length_error("too many rows for one MPI reduction");
    return static_cast<int>(size);
}

/// MPI_Reduce onto rank 0, in place there.
template <typename T>
void reduce(std::vector<T>& data, MPI_Datatype type, MPI_Op op, int rank, MPI_Comm comm) {
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : data.data(), data.data(), count_of(data.size()), type, op, 0, comm);
}

void reduce_rows(RowStatistics& rows, const Datatype& wide, const Operation& wide_sum,
                 const Datatype& extremes, const Operation& extremes_merge, int rank, MPI_Comm comm) {
    reduce(rows.ranks, MPI_UINT64_T, MPI_SUM, rank, comm);
    reduce(rows.sum, wide.get(), wide_sum.get(), rank, comm);
    reduce(rows.sum_squares, wide.get(), wide_sum.get(), rank, comm);
    reduce(rows.visits, wide.get(), wide_sum.get(), rank, comm);
    reduce(rows.thread_total, wide.get(), wide_sum.get(), rank, comm);
    reduce(rows.thread_inclusive, wide.get(), wide_sum.get(), rank, comm);
    reduce(rows.max, MPI_LONG_INT, MPI_MAXLOC, rank, comm);
    reduce(rows.min, MPI_LONG_INT, MPI_MINLOC, rank, comm);
    reduce(rows.extremes, extremes.get(), extremes_merge.get(), rank, comm);
}

void gather_records(std::vector<RankRecord>& records, int rank, int size, MPI_Comm comm) {
    const int mine = count_of(records.size() * rank_record_fields);
    std::vector<int> counts(rank == 0 ? size : 0), offsets(rank == 0 ? size : 0);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    std::vector<RankRecord> all;
    if (rank == 0) {
        std::size_t total = 0;
        for (int r = 0; r < size; ++r) {
            offsets[r] = count_of(total);
            total += static_cast<std::size_t>(counts[r]);
        }
        all.resize(total / rank_record_fields);
    }
    MPI_Gatherv(records.data(), mine, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T, 0,
                comm);
    if (rank == 0) {
        // Ordered by rank, as merge_partial() keeps them (the blocks already
        // arrive in order; sorting makes it independent of the partition).
        std::sort(all.begin(), all.end(),
                  [](const RankRecord& a, const RankRecord& b) { return a.rank < b.rank; });
        records = std::move(all);
    }
}

}  // namespace

void reduce_partial(Partial& partial, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const Datatype wide(2, MPI_UINT64_T);
    const Datatype extremes(static_cast<int>(4 * extreme_count), MPI_INT64_T);
    const Operation wide_sum(sum_wide);
    const Operation extremes_merge(merge_extremes_op);
    reduce_rows(partial.callpaths, wide, wide_sum, extremes, extremes_merge, rank, comm);
    reduce_rows(partial.regions, wide, wide_sum, extremes, extremes_merge, rank, comm);
    gather_records(partial.ranks, rank, size, comm);
}

int first_failing_rank(bool failed, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int mine = failed ? rank : size;
    int first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    return first;
}

}  // namespace strata::analysis
