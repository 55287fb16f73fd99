// SPDX-License-Identifier: BSD-3-Clause
// MPI_THREAD_MULTIPLE: three threads per rank exchange messages with the same
// thread of the partner rank at the same time (tag = thread index, and 10 +
// thread index for the nonblocking ones), so the wrappers, and the request
// table, are used concurrently by several threads.
//
// Calls per rank: main thread MPI_Init_thread 1, MPI_Comm_rank 1, MPI_Comm_size 1,
// MPI_Barrier 1, MPI_Finalize 1; each of the 3 threads MPI_Send 5, MPI_Recv 5,
// MPI_Irecv 5, MPI_Isend 5, MPI_Waitall 5.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define THREADS 3
#define MESSAGES 5

static int rank, partner;

static void* exchange(void* arg) {
    const int tag = (int)(long)arg;
    for (int i = 0; i < MESSAGES; ++i) {
        int out = rank * 100 + i, in = -1;
        if (rank % 2 == 0) {
            MPI_Send(&out, 1, MPI_INT, partner, tag, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, partner, tag, MPI_COMM_WORLD);
        }
        if (in != partner * 100 + i) fprintf(stderr, "rank %d thread %d: got %d\n", rank, tag, in);
        MPI_Request requests[2];
        MPI_Irecv(&in, 1, MPI_INT, partner, 10 + tag, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(&out, 1, MPI_INT, partner, 10 + tag, MPI_COMM_WORLD, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        if (in != partner * 100 + i) fprintf(stderr, "rank %d thread %d: got %d (nonblocking)\n", rank, tag, in);
    }
    return NULL;
}

int main(int argc, char** argv) {
    int provided = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d pid %ld\n", rank, (long)getpid());
    fflush(stdout);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE is not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    partner = rank ^ 1;  // size is even
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; ++t) pthread_create(&threads[t], NULL, exchange, (void*)t);
    for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
