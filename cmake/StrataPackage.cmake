# SPDX-License-Identifier: BSD-3-Clause
# The installed CMake package (find_package(Strata)) and the pkg-config file.
include(CMakePackageConfigHelpers)

install(EXPORT StrataTargets NAMESPACE Strata:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
configure_package_config_file(${PROJECT_SOURCE_DIR}/share/cmake/StrataConfig.cmake.in
  ${PROJECT_BINARY_DIR}/StrataConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/StrataConfig.cmake ${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)

# The .pc file finds the prefix relative to itself (relocatable installs).
file(RELATIVE_PATH STRATA_PC_RELATIVE_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/share/cmake/strata.pc.in ${PROJECT_BINARY_DIR}/strata.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/strata.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
