# Run after drape_tests is built: writes OUT, a CTest include file that gives the label "corpus" to
# every test case of the doctest suite "corpus" (the ones that read ../shared/corpus), so that
# `ctest -LE corpus` runs what needs no game file. (doctest_discover_tests' own ADD_LABELS splits
# test names at their commas.)
execute_process(COMMAND ${TESTS} --list-test-cases --test-suite=corpus --no-intro OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TESTS} --list-test-cases failed (${rc})")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(out "")
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^\\[doctest\\]" OR line MATCHES "^====")
    continue()
  endif()
  string(APPEND out "set_tests_properties([==[${line}]==] PROPERTIES LABELS corpus)\n")
endforeach()
file(WRITE ${OUT} "${out}")
