# Runs pypto-opt once and checks what it did: `cmake -DEXE=... -DARGS=a|b|c -P run_pypto_opt.cmake`.
#
#   EXE              the pypto-opt binary
#   ARGS             its arguments, separated by '|' (a CMake list would be split by add_test)
#   STDIN            a file fed to its standard input (optional)
#   EXPECT_RC        the exit code it must return
#   STDOUT_MATCHES   a regex stdout must match (optional); STDOUT_LACKS: one it must not match
#   STDERR_MATCHES   a regex stderr must match (optional)
#   STDERR_LINES     how many lines stderr must have (optional: the one-line message promise)
#   OUTPUT_FILE      a file removed before the run that must exist after it (optional), with
#                    OUTPUT_MATCHES / OUTPUT_LACKS regexes its text must / must not match
cmake_minimum_required(VERSION 3.20)

string(REPLACE "|" ";" args "${ARGS}")
set(input_option "")
if(DEFINED STDIN)
  set(input_option INPUT_FILE "${STDIN}")
endif()
if(DEFINED OUTPUT_FILE)
  file(REMOVE "${OUTPUT_FILE}")
endif()

execute_process(COMMAND "${EXE}" ${args} ${input_option}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

set(problems "")
if(NOT rc STREQUAL EXPECT_RC)
  string(APPEND problems "\n  - exit code ${rc}, expected ${EXPECT_RC}")
endif()
if(DEFINED STDOUT_MATCHES AND NOT out MATCHES "${STDOUT_MATCHES}")
  string(APPEND problems "\n  - stdout does not match '${STDOUT_MATCHES}'")
endif()
if(DEFINED STDOUT_LACKS AND out MATCHES "${STDOUT_LACKS}")
  string(APPEND problems "\n  - stdout matches '${STDOUT_LACKS}'")
endif()
if(DEFINED STDERR_MATCHES AND NOT err MATCHES "${STDERR_MATCHES}")
  string(APPEND problems "\n  - stderr does not match '${STDERR_MATCHES}'")
endif()
if(DEFINED STDERR_LINES)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL STDERR_LINES)
    string(APPEND problems "\n  - stderr has ${lines} lines, expected ${STDERR_LINES}")
  endif()
endif()
if(DEFINED OUTPUT_FILE)
  if(EXISTS "${OUTPUT_FILE}")
    file(READ "${OUTPUT_FILE}" written)
    if(DEFINED OUTPUT_MATCHES AND NOT written MATCHES "${OUTPUT_MATCHES}")
      string(APPEND problems "\n  - ${OUTPUT_FILE} does not match '${OUTPUT_MATCHES}'")
    endif()
    if(DEFINED OUTPUT_LACKS AND written MATCHES "${OUTPUT_LACKS}")
      string(APPEND problems "\n  - ${OUTPUT_FILE} matches '${OUTPUT_LACKS}'")
    endif()
  else()
    string(APPEND problems "\n  - ${OUTPUT_FILE} was not written")
  endif()
endif()

if(problems)
  message(FATAL_ERROR "pypto-opt ${ARGS}:${problems}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
endif()
