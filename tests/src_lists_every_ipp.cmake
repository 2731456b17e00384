# compiled.src_lists_every_ipp: <pypto/src.hpp> (the one TU of the compiled mode) includes every
# .ipp under include/pypto/, so no definition is left out of pypto::compiled.
# Usage: cmake -DINCLUDE_DIR=<include> -P src_lists_every_ipp.cmake
file(READ "${INCLUDE_DIR}/pypto/src.hpp" src)
file(GLOB_RECURSE ipps RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/pypto/*.ipp")
list(SORT ipps)
set(missing "")
foreach(ipp IN LISTS ipps)
  string(FIND "${src}" "#include \"${ipp}\"" at)
  if(at EQUAL -1)
    list(APPEND missing "${ipp}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "pypto/src.hpp does not include: ${missing}")
endif()
list(LENGTH ipps n)
message(STATUS "pypto/src.hpp includes all ${n} .ipp files")
