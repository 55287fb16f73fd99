! SPDX-License-Identifier: BSD-3-Clause
! OpenMP constructs of a gfortran program, for the OpenMP adapter's tests
! (tests/openmp/run_openmp_scenario.py, scenario constructs-gfortran): GCC's
! libgomp measured through its entry points.  Markers "@name" at the end of a
! line tell the test where each construct is.  3 rounds of a parallel region
! of 2 threads, each with a dynamic loop, a critical section, an OpenMP lock,
! an explicit barrier and, on one thread, 4 tasks and a taskwait.
program omp_constructs
  use omp_lib
  implicit none
  integer, parameter :: rounds = 3, iterations = 100, tasks = 4
  integer(kind=omp_lock_kind) :: lock
  double precision :: total, mine
  integer :: r, i, t, locked

  total = 0
  locked = 0
  call omp_init_lock(lock)
  do r = 1, rounds
!$omp parallel num_threads(2) private(mine, i, t) ! @loops
    mine = 0
!$omp do schedule(dynamic, 10) ! @do
    do i = 1, iterations
      mine = mine + work(200)
    end do
!$omp end do
!$omp critical ! @critical
    total = total + mine
!$omp end critical
    call omp_set_lock(lock) ! @lock
    locked = locked + 1
    call omp_unset_lock(lock)
!$omp barrier ! @barrier
!$omp single
    do t = 1, tasks
!$omp task ! @task
      mine = work(1000)
!$omp end task
    end do
!$omp taskwait ! @taskwait
!$omp end single
!$omp end parallel
  end do
  call omp_destroy_lock(lock)
  print '(a, f0.1, a, i0)', 'total ', total, ' locked ', locked

contains

  double precision function work(n)
    integer, intent(in) :: n
    integer :: k
    work = 0
    do k = 1, n
      work = work + k * 0.5d0
    end do
  end function work

end program omp_constructs
