# Fails when a doctest case name would not survive ctest discovery: doctest_discover_tests keeps
# its list of names as a CMake list, so a ';' splits one case into fragments whose filters match
# nothing, and ctest then "passes" a run of zero cases. Usage: cmake -DEXE=... -P this file.
execute_process(COMMAND "${EXE}" --list-test-cases --no-version OUTPUT_VARIABLE out
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list-test-cases failed (${rc})")
endif()
string(FIND "${out}" ";" at)
if(NOT at EQUAL -1)
  string(SUBSTRING "${out}" 0 ${at} before)
  string(REGEX REPLACE ".*\n" "" line "${before}")
  message(FATAL_ERROR "a test case name holds ';', which ctest discovery splits: '${line};...'")
endif()
