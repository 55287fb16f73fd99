# SPDX-License-Identifier: BSD-3-Clause
# Finds what Strata needs (OTF2, HDF5) and what it can use (MPI, PAPI, CUDA, OMPT).
# Every optional part records STRATA_HAVE_<PART> and a reason for the summary.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

pkg_check_modules(OTF2 REQUIRED IMPORTED_TARGET otf2)

# HDF5: prefer the MPI build so that the profile of all ranks can be written collectively.
pkg_check_modules(HDF5 IMPORTED_TARGET hdf5-openmpi)
if(HDF5_FOUND)
  set(STRATA_HDF5_PARALLEL ON)
else()
  pkg_check_modules(HDF5 REQUIRED IMPORTED_TARGET hdf5)
  set(STRATA_HDF5_PARALLEL OFF)
endif()

option(STRATA_WITH_MPI "Build the MPI adapter and the parallel analysis" ON)
set(STRATA_HAVE_MPI OFF)
if(STRATA_WITH_MPI)
  find_package(MPI COMPONENTS C CXX)
  if(MPI_C_FOUND AND MPI_CXX_FOUND)
    set(STRATA_HAVE_MPI ON)
  else()
    set(STRATA_MPI_REASON "no MPI compiler wrappers found (install libopenmpi-dev)")
  endif()
else()
  set(STRATA_MPI_REASON "disabled with -DSTRATA_WITH_MPI=OFF")
endif()

option(STRATA_WITH_PAPI "Read hardware counters with PAPI" ON)
set(STRATA_HAVE_PAPI OFF)
if(STRATA_WITH_PAPI)
  pkg_check_modules(PAPI IMPORTED_TARGET papi)
  if(PAPI_FOUND)
    set(STRATA_HAVE_PAPI ON)
  else()
    set(STRATA_PAPI_REASON "papi.pc not found (install libpapi-dev)")
  endif()
else()
  set(STRATA_PAPI_REASON "disabled with -DSTRATA_WITH_PAPI=OFF")
endif()

option(STRATA_WITH_OMPT "Build the OpenMP (OMPT) adapter" ON)
set(STRATA_HAVE_OMPT OFF)
if(STRATA_WITH_OMPT)
  include(CheckIncludeFileCXX)
  find_path(STRATA_OMPT_INCLUDE_DIR omp-tools.h
    PATHS /usr/lib/llvm-16/lib/clang/16/include /usr/lib/llvm-15/lib/clang/15.0.7/include
          /usr/lib/llvm-14/lib/clang/14.0.6/include
    PATH_SUFFIXES include)
  find_library(STRATA_LIBOMP NAMES omp omp5 PATHS /usr/lib/llvm-14/lib /usr/lib/x86_64-linux-gnu)
  if(STRATA_OMPT_INCLUDE_DIR AND STRATA_LIBOMP)
    set(STRATA_HAVE_OMPT ON)
  else()
    set(STRATA_OMPT_REASON "omp-tools.h or libomp not found (install libomp-dev)")
  endif()
else()
  set(STRATA_OMPT_REASON "disabled with -DSTRATA_WITH_OMPT=OFF")
endif()

# Strata's GCC plugin (instrumenter/gcc_plugin/) needs the plugin headers of the GCC in use
# (Debian: gcc-<major>-plugin-dev) and is built with the g++ of the same release.  Without it
# the wrapper instruments with -finstrument-functions.
option(STRATA_WITH_GCC_PLUGIN "Build Strata's GCC plugin (function instrumentation with pre-registered regions)" ON)
set(STRATA_HAVE_GCC_PLUGIN OFF)
set(STRATA_GCC_PLUGIN_GCC_VERSION "")
set(STRATA_GCC_PLUGIN_GCC_DIR "")
set(STRATA_BUILD_GCC_PLUGIN "")
if(NOT STRATA_WITH_GCC_PLUGIN)
  set(STRATA_GCC_PLUGIN_REASON "disabled with -DSTRATA_WITH_GCC_PLUGIN=OFF")
elseif(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(STRATA_GCC_PLUGIN_REASON "the C and C++ compilers are not GCC")
elseif(NOT CMAKE_C_COMPILER_VERSION VERSION_EQUAL CMAKE_CXX_COMPILER_VERSION)
  set(STRATA_GCC_PLUGIN_REASON "gcc ${CMAKE_C_COMPILER_VERSION} and g++ ${CMAKE_CXX_COMPILER_VERSION} differ")
else()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=plugin
    OUTPUT_VARIABLE gcc_plugin_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  get_filename_component(gcc_plugin_dir "${gcc_plugin_dir}" REALPATH)
  string(REGEX MATCH "^[0-9]+" gcc_major "${CMAKE_C_COMPILER_VERSION}")
  if(EXISTS "${gcc_plugin_dir}/include/gcc-plugin.h")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -dumpfullversion
      OUTPUT_VARIABLE STRATA_GCC_PLUGIN_GCC_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    set(STRATA_GCC_PLUGIN_GCC_DIR "${gcc_plugin_dir}")
    set(STRATA_HAVE_GCC_PLUGIN ON)
    # Built by instrumenter/gcc_plugin/; the wrapper's tests need its path too.
    set(STRATA_BUILD_GCC_PLUGIN ${PROJECT_BINARY_DIR}/instrumenter/gcc_plugin/strata_gcc.so)
  else()
    set(STRATA_GCC_PLUGIN_REASON
      "no GCC plugin headers in ${gcc_plugin_dir}/include (install gcc-${gcc_major}-plugin-dev): -finstrument-functions only")
  endif()
endif()

option(STRATA_WITH_CUDA "Build the CUDA (CUPTI, NVTX) adapter" ON)
set(STRATA_HAVE_CUDA OFF)
if(STRATA_WITH_CUDA)
  # Only headers are needed at build time: CUPTI is loaded when the program runs.
  find_path(STRATA_CUDA_INCLUDE_DIR cupti.h
    HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES include extras/CUPTI/include
    PATHS /usr/local/cuda /usr/local/cuda/extras/CUPTI/include)
  if(STRATA_CUDA_INCLUDE_DIR AND EXISTS "${STRATA_CUDA_INCLUDE_DIR}/nvtx3/nvToolsExt.h")
    set(STRATA_HAVE_CUDA ON)
    get_filename_component(cuda_root "${STRATA_CUDA_INCLUDE_DIR}" DIRECTORY)
    # Where the adapter looks for libcupti when the process has none loaded yet.
    set(STRATA_CUDA_LIBRARY_DIR "${cuda_root}/lib64")
    find_program(STRATA_NVCC nvcc HINTS ENV CUDA_HOME PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
  else()
    set(STRATA_CUDA_REASON "no CUDA toolkit with CUPTI and NVTX headers found")
  endif()
else()
  set(STRATA_CUDA_REASON "disabled with -DSTRATA_WITH_CUDA=OFF")
endif()

find_package(GTest)
find_program(STRATA_OTF2_PRINT otf2-print)
find_program(STRATA_H5DUMP h5dump)
# The OTF2 Python bindings are importable only from the distribution's interpreter.
find_program(STRATA_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
