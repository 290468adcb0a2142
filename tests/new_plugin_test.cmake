# Run by CTest: install the build, let the installed CLI write a new plugin with
# `tokenlab new-plugin`, build it against the install and check it: a student's
# starting point builds and passes check-plugin at once, with one warning until
# the placeholder description is replaced.
include(${CMAKE_CURRENT_LIST_DIR}/run_command.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${prefix}/bin/tokenlab new-plugin syllable_split ${WORK_DIR}/syllable_split)
foreach(file syllable_split.cpp CMakeLists.txt README.md)
  if(NOT EXISTS ${WORK_DIR}/syllable_split/${file})
    message(FATAL_ERROR "new-plugin did not write ${file}")
  endif()
endforeach()
file(READ ${WORK_DIR}/syllable_split/syllable_split.cpp source)
if(source MATCHES "ngram|Ngram")
  message(FATAL_ERROR "the example's name is left in syllable_split.cpp")
endif()
# The description is a placeholder that says to replace it, not the example's.
if(NOT source MATCHES "kDescription =[ \n]*\"TODO: say in one line what syllable_split does \\(placeholder written by tokenlab new-plugin\\)\"")
  message(FATAL_ERROR "new-plugin did not write its placeholder description")
endif()
run(${CMAKE_COMMAND} -S ${WORK_DIR}/syllable_split -B ${WORK_DIR}/syllable_split/build -G Ninja
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/syllable_split/build)
# Every check passes; the placeholder description is the one warning.
execute_process(COMMAND ${prefix}/bin/tokenlab check-plugin
    ${WORK_DIR}/syllable_split/build/syllable_split.so
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n  WARN  the description is still the placeholder tokenlab new-plugin wrote"
   OR NOT out MATCHES " passed, 0 failed, 1 warning\n$")
  message(FATAL_ERROR "check-plugin (${rc}) should pass syllable_split with one warning:\n${out}\n${err}")
endif()
