/* SPDX-License-Identifier: BSD-3-Clause */
/* Heat diffusion on a square plate (Jacobi iterations), the demo program of Strata.
 *
 *   heat [-n GRID] [-i ITERATIONS] [-x RANKS:FACTOR]
 *
 *   -n GRID        grid points per side (default 512)
 *   -i ITERATIONS  Jacobi iterations (default 60)
 *   -x RANKS:FACTOR  ranks that do FACTOR times the compute work, e.g. -x 1,3:2.5
 *                  (a known load imbalance for the analysis to find; default none)
 *
 * Built with MPI (STRATA_EXAMPLE_WITH_MPI), the rows are split among the ranks,
 * which exchange halo rows every iteration and reduce the residual.  Each
 * iteration is a phase; halo exchange, compute and residual are regions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/strata.h>

#ifdef STRATA_EXAMPLE_WITH_MPI
#include <mpi.h>
#endif

static int rank = 0, size = 1;

/* Ranks listed in the -x option do `factor` times the compute work. */
static double work_factor(const char* spec, int me) {
    if (spec == NULL) return 1.0;
    const char* colon = strchr(spec, ':');
    if (colon == NULL) return 1.0;
    double factor = atof(colon + 1);
    char list[256];
    size_t len = (size_t)(colon - spec) < sizeof list - 1 ? (size_t)(colon - spec) : sizeof list - 1;
    memcpy(list, spec, len);
    list[len] = '\0';
    for (char* item = strtok(list, ","); item != NULL; item = strtok(NULL, ",")) {
        if (atoi(item) == me) return factor > 0 ? factor : 1.0;
    }
    return 1.0;
}

static void exchange_halos(double* grid, int rows, int n) {
    STRATA_REGION_BEGIN("halo_exchange");
#ifdef STRATA_EXAMPLE_WITH_MPI
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&grid[1 * n], n, MPI_DOUBLE, up, 0, &grid[(rows + 1) * n], n, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&grid[rows * n], n, MPI_DOUBLE, down, 1, &grid[0], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
#else
    (void)grid;
    (void)rows;
    (void)n;
#endif
    STRATA_REGION_END("halo_exchange");
}

/* One Jacobi sweep over the local rows; `repeat` > 1 simulates a slower rank. */
static double sweep(const double* in, double* out, int rows, int n, double repeat) {
    STRATA_REGION_BEGIN("compute");
    double change = 0.0;
    int passes = (int)repeat;
    double rest = repeat - passes;
    for (int p = 0; p < passes + (rest > 0 ? 1 : 0); ++p) {
        int last_row = (p == passes) ? 1 + (int)(rows * rest) : rows + 1;
        change = 0.0;
        for (int i = 1; i < last_row; ++i) {
            for (int j = 1; j < n - 1; ++j) {
                double v = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
                double d = v - in[i * n + j];
                change += d * d;
                out[i * n + j] = v;
            }
        }
    }
    STRATA_REGION_END("compute");
    return change;
}

int main(int argc, char** argv) {
    int n = 512, iterations = 60;
    const char* imbalance = NULL;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) n = atoi(argv[++a]);
        else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) iterations = atoi(argv[++a]);
        else if (strcmp(argv[a], "-x") == 0 && a + 1 < argc) imbalance = argv[++a];
        else {
            fprintf(stderr, "usage: %s [-n GRID] [-i ITERATIONS] [-x RANKS:FACTOR]\n", argv[0]);
            return 2;
        }
    }
    if (n < 8 || iterations < 1) {
        fprintf(stderr, "heat: GRID must be at least 8 and ITERATIONS at least 1\n");
        return 2;
    }
#ifdef STRATA_EXAMPLE_WITH_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    STRATA_REGION_BEGIN("initialize");
    int rows = n / size + (rank < n % size ? 1 : 0);
    double factor = work_factor(imbalance, rank);
    STRATA_PARAMETER_INT("grid", n);
    double* a = calloc((size_t)(rows + 2) * n, sizeof(double));
    double* b = calloc((size_t)(rows + 2) * n, sizeof(double));
    if (a == NULL || b == NULL) {
        fprintf(stderr, "heat: out of memory for a %dx%d grid\n", n, n);
        return 1;
    }
    /* A hot top edge on the first rank. */
    if (rank == 0) {
        for (int j = 0; j < n; ++j) a[j] = b[j] = 100.0;
    }
    STRATA_REGION_END("initialize");

    double residual = 0.0;
    for (int it = 0; it < iterations; ++it) {
        STRATA_PHASE_BEGIN("iteration");
        exchange_halos(a, rows, n);
        double local = sweep(a, b, rows, n, factor);
        STRATA_REGION_BEGIN("residual");
#ifdef STRATA_EXAMPLE_WITH_MPI
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
        residual = local;
#endif
        STRATA_REGION_END("residual");
        double* t = a;
        a = b;
        b = t;
        STRATA_PHASE_END("iteration");
    }
    if (rank == 0) printf("heat: %d x %d grid, %d iterations, %d ranks, residual %.6e\n", n, n, iterations, size, residual);
    free(a);
    free(b);
#ifdef STRATA_EXAMPLE_WITH_MPI
    MPI_Finalize();
#endif
    return 0;
}
