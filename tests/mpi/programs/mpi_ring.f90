! SPDX-License-Identifier: BSD-3-Clause
! The Fortran twin of mpi_ring.c ("use mpi", so calls go through mpi_xxx_): a blocking
! ring, a nonblocking halo exchange and collectives, with known counts per rank:
!   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Send 3, MPI_Recv 3, MPI_Irecv 6,
!   MPI_Isend 6, MPI_Waitall 3, MPI_Allreduce 3, MPI_Bcast 1, MPI_Reduce 1, MPI_Gather 1,
!   MPI_Scatter 1, MPI_Alltoall 1, MPI_Barrier 1, MPI_Finalize 1,
! then message events of more kinds:
!   MPI_Comm_split 1, MPI_Allreduce +2 (on the half, in place), MPI_Sendrecv 1, MPI_Irecv +2, MPI_Isend +2,
!   MPI_Waitany 2, MPI_Recv_init 1, MPI_Send_init 1, MPI_Startall 2, MPI_Waitall +2,
!   MPI_Request_free 2, MPI_Comm_free 1
program mpi_ring
    use mpi
    implicit none
    integer, parameter :: iterations = 3
    integer :: rank, nranks, left, right, i, ierr
    integer :: requests(4), persistent(2), half, which, k
    integer :: status(MPI_STATUS_SIZE)
    double precision :: token, received, halo_out(2), halo_in(2), value, total
    integer :: root_value, gathered(64), scattered, all_out(64), all_in(64)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    write (*, '(A,I0,A,I0)') 'rank ', rank, ' pid ', getpid()
    flush (6)
    right = mod(rank + 1, nranks)
    left = mod(rank + nranks - 1, nranks)
    value = rank
    do i = 1, iterations
        token = rank
        if (mod(rank, 2) == 0) then
            call MPI_Send(token, 1, MPI_DOUBLE_PRECISION, right, 10 + i, MPI_COMM_WORLD, ierr)
            call MPI_Recv(received, 1, MPI_DOUBLE_PRECISION, left, 10 + i, MPI_COMM_WORLD, &
                          MPI_STATUS_IGNORE, ierr)
        else
            call MPI_Recv(received, 1, MPI_DOUBLE_PRECISION, left, 10 + i, MPI_COMM_WORLD, &
                          MPI_STATUS_IGNORE, ierr)
            call MPI_Send(token, 1, MPI_DOUBLE_PRECISION, right, 10 + i, MPI_COMM_WORLD, ierr)
        end if
        halo_out = rank
        call MPI_Irecv(halo_in(1), 1, MPI_DOUBLE_PRECISION, left, 20, MPI_COMM_WORLD, requests(1), ierr)
        call MPI_Irecv(halo_in(2), 1, MPI_DOUBLE_PRECISION, right, 21, MPI_COMM_WORLD, requests(2), ierr)
        call MPI_Isend(halo_out(1), 1, MPI_DOUBLE_PRECISION, right, 20, MPI_COMM_WORLD, requests(3), ierr)
        call MPI_Isend(halo_out(2), 1, MPI_DOUBLE_PRECISION, left, 21, MPI_COMM_WORLD, requests(4), ierr)
        call MPI_Waitall(4, requests, MPI_STATUSES_IGNORE, ierr)
        call MPI_Allreduce(value, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
    root_value = 0
    if (rank == 0) root_value = 42
    call MPI_Bcast(root_value, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Reduce(value, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call MPI_Gather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Scatter(gathered, 1, MPI_INTEGER, scattered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    all_out = rank
    call MPI_Alltoall(all_out, 1, MPI_INTEGER, all_in, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    ! Even and odd ranks, a reduction on each half.
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    call MPI_Allreduce(value, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, half, ierr)
    ! The Fortran MPI_IN_PLACE (an address in the MPI library) is recognised.
    call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    ! MPI_Sendrecv with a status; two requests completed by MPI_Waitany (1-based indices).
    call MPI_Sendrecv(token, 1, MPI_DOUBLE_PRECISION, right, 30, received, 1, MPI_DOUBLE_PRECISION, left, 30, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_Irecv(halo_in(1), 1, MPI_DOUBLE_PRECISION, left, 31, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Irecv(halo_in(2), 2, MPI_DOUBLE_PRECISION, right, 32, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Isend(halo_out(1), 1, MPI_DOUBLE_PRECISION, right, 31, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_Isend(halo_out(1), 2, MPI_DOUBLE_PRECISION, left, 32, MPI_COMM_WORLD, requests(4), ierr)
    call MPI_Waitany(2, requests, which, MPI_STATUS_IGNORE, ierr)
    call MPI_Waitany(2, requests, which, status, ierr)
    call MPI_Waitall(2, requests(3:4), MPI_STATUSES_IGNORE, ierr)
    ! Persistent requests, started twice.
    call MPI_Recv_init(halo_in(1), 1, MPI_DOUBLE_PRECISION, left, 33, MPI_COMM_WORLD, persistent(1), ierr)
    call MPI_Send_init(halo_out(1), 1, MPI_DOUBLE_PRECISION, right, 33, MPI_COMM_WORLD, persistent(2), ierr)
    do k = 1, 2
        call MPI_Startall(2, persistent, ierr)
        call MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE, ierr)
    end do
    call MPI_Request_free(persistent(1), ierr)
    call MPI_Request_free(persistent(2), ierr)
    call MPI_Comm_free(half, ierr)
    call MPI_Finalize(ierr)
    if (root_value /= 42) stop 1
end program mpi_ring
