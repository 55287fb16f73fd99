// SPDX-License-Identifier: BSD-3-Clause
// Every kind of MPI message event the adapter records, with known counts per
// rank, for the message tests (run_mpi_scenario.py, message_checks.py): a
// blocking ring, a halo exchange, derived datatypes, MPI_Sendrecv(_replace), MPI_Probe + MPI_Recv,
// MPI_Waitany / Waitsome / Testall / Test / Testany, receives completed in
// another order than posted, persistent requests,
// MPI_Mprobe / MPI_Improbe, a cancelled receive, MPI_PROC_NULL peers, every
// blocking collective on MPI_COMM_WORLD (two of them in place), communicators
// made by MPI_Comm_split, MPI_Comm_dup, MPI_Cart_create, MPI_Comm_create,
// MPI_Intercomm_create (+ MPI_Comm_dup of it) and MPI_Intercomm_merge, with
// messages and collectives on them, and two communicators Strata cannot know
// (made by PMPI_Comm_dup), and on MPI_Comm_idup's.  Needs an even number of ranks.
// Every rank prints "rank R pid P".  run_mpi_scenario.py lists the calls per rank.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXRANKS 64

static int rank, size, left, right, failures;

static void check(int ok, const char* what) {
    if (!ok) {
        fprintf(stderr, "rank %d: %s\n", rank, what);
        ++failures;
    }
}

static void point_to_point(void) {
    // Blocking ring, growing messages: 1, 2, 3 doubles with tags 10, 11, 12.
    for (int i = 0; i < 3; ++i) {
        double out[3] = {rank, rank, rank}, in[3] = {-1, -1, -1};
        if (rank % 2 == 0) {
            MPI_Send(out, i + 1, MPI_DOUBLE, right, 10 + i, MPI_COMM_WORLD);
            MPI_Recv(in, 3, MPI_DOUBLE, left, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 3, MPI_DOUBLE, left, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, i + 1, MPI_DOUBLE, right, 10 + i, MPI_COMM_WORLD);
        }
        check(in[i] == left, "ring");
    }
    // Halo exchange, twice.
    for (int i = 0; i < 2; ++i) {
        int out[2] = {rank, rank}, in[2] = {-1, -1};
        MPI_Request r[4];
        MPI_Irecv(&in[0], 1, MPI_INT, left, 20, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&in[1], 1, MPI_INT, right, 21, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&out[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(&out[1], 1, MPI_INT, left, 21, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        check(in[0] == left && in[1] == right, "halo");
    }
    // MPI_Sendrecv (5 ints) and MPI_Sendrecv_replace (3 ints), with a status.
    int five[5] = {rank}, got[5], three[3] = {rank, rank, rank};
    MPI_Status status;
    MPI_Sendrecv(five, 5, MPI_INT, right, 30, got, 5, MPI_INT, left, 30, MPI_COMM_WORLD, &status);
    check(status.MPI_SOURCE == left && got[0] == left, "sendrecv");
    MPI_Sendrecv_replace(three, 3, MPI_INT, right, 31, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(three[2] == left, "sendrecv_replace");
    // MPI_Probe + MPI_Recv of a message of unknown size: 4 + rank ints to the right.
    int probe_out[MAXRANKS + 4], probe_in[MAXRANKS + 4], n = 0;
    MPI_Request send;
    MPI_Isend(probe_out, 4 + rank, MPI_INT, right, 40, MPI_COMM_WORLD, &send);
    MPI_Probe(MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &n);
    MPI_Recv(probe_in, n, MPI_INT, status.MPI_SOURCE, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(n == 4 + left, "probe");
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    // Derived datatypes: 2 x contiguous(3 ints) = 24 bytes with tag 42, then, after
    // MPI_Type_free, a new contiguous(5 doubles) type (MPI may give it the freed
    // handle) = 40 bytes with tag 43.  Their sizes must not be remembered.
    int sizes[2] = {3, 5}, counts[2] = {2, 1};
    MPI_Datatype bases[2] = {MPI_INT, MPI_DOUBLE};
    for (int i = 0; i < 2; ++i) {
        double out[6] = {rank, rank, rank, rank, rank, rank}, in[6] = {-1, -1, -1, -1, -1, -1};
        MPI_Datatype derived;
        MPI_Type_contiguous(sizes[i], bases[i], &derived);
        MPI_Type_commit(&derived);
        if (rank % 2 == 0) {
            MPI_Send(out, counts[i], derived, right, 42 + i, MPI_COMM_WORLD);
            MPI_Recv(in, counts[i], derived, left, 42 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, counts[i], derived, left, 42 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, counts[i], derived, right, 42 + i, MPI_COMM_WORLD);
        }
        MPI_Type_free(&derived);
        check(in[0] == left, "derived datatype");
    }
    // MPI_PROC_NULL peers: no message events.
    int nothing = 0;
    MPI_Send(&nothing, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD);
    MPI_Recv(&nothing, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Isend(&nothing, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD, &send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
}

static void completion(void) {
    // MPI_Waitany: four requests, exactly four calls.
    int out[4] = {rank, rank, rank, rank}, in[4];
    MPI_Request r[4];
    MPI_Irecv(&in[0], 1, MPI_INT, left, 50, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, right, 51, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&out[0], 1, MPI_INT, right, 50, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&out[1], 1, MPI_INT, left, 51, MPI_COMM_WORLD, &r[3]);
    for (int i = 0; i < 4; ++i) {
        int index = -1;
        MPI_Status status;
        MPI_Waitany(4, r, &index, &status);
        check(index >= 0 && index < 4 && r[index] == MPI_REQUEST_NULL, "waitany");
    }
    // MPI_Waitsome until all four are done.
    MPI_Irecv(&in[0], 1, MPI_INT, left, 52, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out[0], 1, MPI_INT, right, 52, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(&in[1], 2, MPI_INT, right, 53, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&out[1], 2, MPI_INT, left, 53, MPI_COMM_WORLD, &r[3]);
    for (int done = 0; done < 4;) {
        int count = 0, indices[4];
        MPI_Waitsome(4, r, &count, indices, MPI_STATUSES_IGNORE);
        done += count;
    }
    // MPI_Testall until complete.
    MPI_Irecv(&in[0], 1, MPI_INT, left, 54, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out[0], 1, MPI_INT, right, 54, MPI_COMM_WORLD, &r[1]);
    for (int flag = 0; !flag;) MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    // MPI_Test on a receive, then MPI_Wait on the send.
    MPI_Irecv(&in[0], 1, MPI_INT, left, 56, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out[0], 1, MPI_INT, right, 56, MPI_COMM_WORLD, &r[1]);
    for (int flag = 0; !flag;) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    // MPI_Testany until both are done.
    MPI_Irecv(&in[0], 3, MPI_INT, left, 57, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out[0], 3, MPI_INT, right, 57, MPI_COMM_WORLD, &r[1]);
    for (int done = 0; done < 2;) {
        int index = 0, flag = 0;
        MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
        if (flag && index != MPI_UNDEFINED) ++done;
    }
    // Two messages on one channel (the same peer and tag), received in the
    // reverse of the order the receives were posted: MPI matches them in the
    // order of posting, so the first receive gets the first (longer) message.
    int first[2] = {-1, -1}, second = -1;
    MPI_Irecv(first, 2, MPI_INT, left, 58, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&second, 1, MPI_INT, left, 58, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&out[0], 2, MPI_INT, right, 58, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&out[2], 1, MPI_INT, right, 58, MPI_COMM_WORLD, &r[3]);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Waitall(2, &r[2], MPI_STATUSES_IGNORE);
    check(first[0] == left && first[1] == left && second == left, "receives completed out of order");
    // Persistent requests: three MPI_Startall + MPI_Waitall, one MPI_Start each + MPI_Wait.
    double pout = rank, pin = -1;
    MPI_Request p[2];
    MPI_Recv_init(&pin, 1, MPI_DOUBLE, left, 60, MPI_COMM_WORLD, &p[0]);
    MPI_Send_init(&pout, 1, MPI_DOUBLE, right, 60, MPI_COMM_WORLD, &p[1]);
    for (int i = 0; i < 3; ++i) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&p[0]);
    MPI_Start(&p[1]);
    MPI_Wait(&p[1], MPI_STATUS_IGNORE);
    MPI_Wait(&p[0], MPI_STATUS_IGNORE);
    check(pin == left, "persistent");
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    // Matched probes: MPI_Mprobe + MPI_Mrecv, MPI_Improbe + MPI_Imrecv.
    MPI_Message message;
    MPI_Status status;
    MPI_Isend(&out[0], 2, MPI_INT, right, 70, MPI_COMM_WORLD, &r[1]);
    MPI_Mprobe(left, 70, MPI_COMM_WORLD, &message, &status);
    MPI_Mrecv(in, 2, MPI_INT, &message, &status);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Isend(&out[0], 1, MPI_INT, right, 71, MPI_COMM_WORLD, &r[1]);
    for (int flag = 0; !flag;) MPI_Improbe(left, 71, MPI_COMM_WORLD, &flag, &message, MPI_STATUS_IGNORE);
    MPI_Imrecv(in, 1, MPI_INT, &message, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    // A receive nobody sends to, cancelled.
    int cancelled = 0;
    MPI_Irecv(&in[0], 1, MPI_INT, left, 99, MPI_COMM_WORLD, &r[0]);
    MPI_Cancel(&r[0]);
    MPI_Wait(&r[0], &status);
    MPI_Test_cancelled(&status, &cancelled);
    check(cancelled, "cancel");
}

static void collectives(void) {
    int one = rank, all[MAXRANKS], counts[MAXRANKS], displs[MAXRANKS], big[MAXRANKS * (MAXRANKS + 1)];
    int recvcounts[MAXRANKS], rdispls[MAXRANKS];
    MPI_Datatype types[MAXRANKS];
    int total = 0;
    for (int i = 0; i < size; ++i) {
        counts[i] = i + 1;  // rank i contributes i + 1 elements
        displs[i] = total;
        total += i + 1;
        types[i] = MPI_INT;
    }
    for (int i = 0; i < MAXRANKS * (MAXRANKS + 1); ++i) big[i] = rank;
    int three[3] = {1, 2, 3}, two[2] = {rank, rank}, gathered[2 * MAXRANKS], mine[MAXRANKS + 1];
    double d = rank, d2[2] = {rank, rank}, sum = 0, sum2[2];
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(three, 3, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(two, 2, MPI_INT, gathered, 2, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Gatherv(big, rank + 1, MPI_INT, big, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(gathered, 2, MPI_INT, two, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(big, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int* everything = malloc(sizeof(int) * (size_t)total);
    MPI_Allgatherv(big, rank + 1, MPI_INT, everything, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(all, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD);
    // Alltoallv: rank j gets j + 1 ints from everyone.
    for (int j = 0; j < size; ++j) {
        recvcounts[j] = rank + 1;
        rdispls[j] = j * (rank + 1);
    }
    int* received = malloc(sizeof(int) * (size_t)(size * (rank + 1)));
    MPI_Alltoallv(big, counts, displs, MPI_INT, received, recvcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    int ones[MAXRANKS], byte_displs[MAXRANKS];
    for (int j = 0; j < size; ++j) {
        ones[j] = 1;
        byte_displs[j] = j * (int)sizeof(int);
    }
    MPI_Alltoallw(all, ones, byte_displs, types, gathered, ones, byte_displs, types, MPI_COMM_WORLD);
    MPI_Reduce(d2, sum2, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&d, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter(big, mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(big, two, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(&one, &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&one, &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        all[0] = 0;
        MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Gather(&one, 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    }
    check(three[2] == 3 && sum == size * (size - 1) / 2.0, "collectives");
    free(everything);
    free(received);
}

static void communicators(void) {
    // Even and odd ranks: a ring and two collectives in each half.
    MPI_Comm half, dup, cart, first, inter, inter_dup, merged, hidden, later;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank = 0, hsize = 1, token = rank, got = -1;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Sendrecv(&token, 1, MPI_INT, (hrank + 1) % hsize, 80, &got, 1, MPI_INT, (hrank + hsize - 1) % hsize, 80,
                 half, MPI_STATUS_IGNORE);
    double d = rank, sum = 0;
    MPI_Allreduce(&d, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
    MPI_Bcast(&token, 1, MPI_INT, 0, half);
    // A duplicate of MPI_COMM_WORLD and a periodic ring topology.
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Sendrecv(&token, 1, MPI_INT, right, 81, &got, 1, MPI_INT, left, 81, dup, MPI_STATUS_IGNORE);
    int dims[1] = {size}, periods[1] = {1}, source = 0, dest = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &source, &dest);
    MPI_Sendrecv(&token, 1, MPI_INT, dest, 82, &got, 1, MPI_INT, source, 82, cart, MPI_STATUS_IGNORE);
    // The first half of the ranks (MPI_COMM_NULL on the others).
    MPI_Group world_group, first_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int range[1][3] = {{0, size / 2 - 1, 1}};
    MPI_Group_range_incl(world_group, 1, range, &first_group);
    MPI_Comm_create(MPI_COMM_WORLD, first_group, &first);
    if (first != MPI_COMM_NULL) {
        int x = 1, y = 0;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, first);
        MPI_Comm_free(&first);
    }
    MPI_Group_free(&first_group);
    MPI_Group_free(&world_group);
    // Even and odd halves joined by an intercommunicator, duplicated, then merged (evens first).
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 90, &inter);
    MPI_Comm_dup(inter, &inter_dup);
    MPI_Intercomm_merge(inter_dup, rank % 2, &merged);
    MPI_Barrier(merged);
    // A communicator Strata does not know: events name "unknown communicator".
    PMPI_Comm_dup(MPI_COMM_WORLD, &hidden);
    MPI_Sendrecv(&token, 1, MPI_INT, right, 95, &got, 1, MPI_INT, left, 95, hidden, MPI_STATUS_IGNORE);
    // Nonblocking duplicates, defined without communication: one of MPI_COMM_WORLD,
    // two in a row of each half (a ring on the first, a barrier on the second).
    MPI_Request request, idups[2];
    MPI_Comm half_idup[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &later, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Barrier(later);
    MPI_Comm_idup(half, &half_idup[0], &idups[0]);
    MPI_Comm_idup(half, &half_idup[1], &idups[1]);
    MPI_Waitall(2, idups, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(&token, 1, MPI_INT, (hrank + 1) % hsize, 96, &got, 1, MPI_INT, (hrank + hsize - 1) % hsize, 96,
                 half_idup[0], MPI_STATUS_IGNORE);
    MPI_Barrier(half_idup[1]);
    MPI_Comm_free(&half_idup[0]);
    MPI_Comm_free(&half_idup[1]);
    // A nonblocking collective: a region only.
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Comm_free(&later);
    PMPI_Comm_free(&hidden);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter_dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d pid %ld\n", rank, (long)getpid());
    fflush(stdout);
    if (size % 2 != 0 || size > MAXRANKS) MPI_Abort(MPI_COMM_WORLD, 2);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    point_to_point();
    completion();
    collectives();
    communicators();
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
