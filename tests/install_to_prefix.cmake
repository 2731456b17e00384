# Fixture for install.find_package: install the build tree into a fresh scratch prefix.
# Usage: cmake -DBINARY_DIR=<build> -DPREFIX=<prefix> [-DCONFIG=<cfg>] [-DLIBDIR=<dir>]
#          -P install_to_prefix.cmake
foreach(var BINARY_DIR PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_to_prefix.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")  # no stale headers from an earlier run
set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${PREFIX}" ${config_args}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BINARY_DIR} --prefix ${PREFIX} failed (${rc})")
endif()
if(NOT LIBDIR)
  set(LIBDIR lib)
endif()
foreach(f ${LIBDIR}/cmake/pypto/pyptoConfig.cmake ${LIBDIR}/cmake/pypto/pyptoConfigVersion.cmake
          ${LIBDIR}/cmake/pypto/pyptoTargets.cmake ${LIBDIR}/libpypto.a include/pypto/src.hpp)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "installed tree lacks ${f}")
  endif()
endforeach()
