# Runs one Lisp test program: cmake -DLISP=... -DPROGRAM=x.lisp
# -DEXPECTED=x.out -DSTATUS=n [-DSTRESS=n] -P run.cmake
# Fails unless the output equals EXPECTED and the exit status is STATUS.
if(DEFINED STRESS)
  set(ENV{LISP_GC_STRESS} ${STRESS})
endif()
execute_process(COMMAND ${LISP} ${PROGRAM} OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE status)
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "output of ${PROGRAM} differs from ${EXPECTED}\n--- got:\n${out}\n--- stderr:\n${err}")
endif()
if(NOT status STREQUAL "${STATUS}")
  message(FATAL_ERROR "${PROGRAM}: exit status ${status}, expected ${STATUS}\n--- stderr:\n${err}")
endif()
message(STATUS "${PROGRAM}: output and status ${status} as expected")
