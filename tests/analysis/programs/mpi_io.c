/* SPDX-License-Identifier: BSD-3-Clause
 * MPI-IO as parallel HDF5 does it underneath: every rank writes its blocks of
 * one shared file with MPI_File_write_at (independent I/O, synced after each
 * round), then the ranks sum a value with MPI_Allreduce.  The analysis must
 * count the file time as I/O, not as communication.  Arguments: the file
 * (default mpi_io.dat, removed at the end), rounds (default 40). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { block = 256 * 1024 };

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* path = argc > 1 ? argv[1] : "mpi_io.dat";
    const int rounds = argc > 2 ? atoi(argv[2]) : 40;
    char* data = malloc(block);
    memset(data, 'a' + rank % 26, block);
    MPI_File file;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file) != MPI_SUCCESS) {
        fprintf(stderr, "mpi_io: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double sum = 0, one = 1;
    for (int i = 0; i < rounds; ++i) {
        const MPI_Offset at = ((MPI_Offset)i * size + rank) * block;
        MPI_File_write_at(file, at, data, block, MPI_CHAR, MPI_STATUS_IGNORE);
        MPI_File_sync(file);
        MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_File_close(&file);
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    free(data);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
