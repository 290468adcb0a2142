# Run by CTest: the two assignment sheets' build steps, as a student follows them.
# Install the build; copy docs/course/assignments/bpe-training, build it against
# the install and grade it (the template as handed out: 16/100), then with the
# reference solution's merge loop (100/100); write a project with the installed
# `tokenlab new-plugin`, build and grade it (70/100), then with the reference
# new-segmenter solution (100/100).
include(${CMAKE_CURRENT_LIST_DIR}/../run_command.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(tokenlab ${prefix}/bin/tokenlab)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# build(<dir>): configure once, build (again), as the sheets say.
function(build dir)
  if(NOT EXISTS ${dir}/build/CMakeCache.txt)
    run(${CMAKE_COMMAND} -S ${dir} -B ${dir}/build -G Ninja
        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
  endif()
  run(${CMAKE_COMMAND} --build ${dir}/build)
endfunction()

# grade(<assignment> <dir> <plugin> <score>): the installed CLI's grade, run from
# the project's directory as the sheet shows it, ends with "score <score>/100".
function(grade assignment dir plugin score)
  execute_process(COMMAND ${tokenlab} grade ${assignment} build/${plugin}.so
    WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\nscore ${score}/100\n$")
    message(FATAL_ERROR "grade ${assignment} ${dir} (${rc}): expected score ${score}/100\n${out}\n${err}")
  endif()
endfunction()

# bpe-training: the template's directory, copied as a student copies it.
set(bpe ${WORK_DIR}/my_bpe)
file(COPY ${SOURCE_DIR}/docs/course/assignments/bpe-training/ DESTINATION ${bpe})
build(${bpe})
grade(bpe-training ${bpe} my_bpe 16)
configure_file(${SOURCE_DIR}/tests/grade/bpe_solution.cpp ${bpe}/my_bpe.cpp COPYONLY)
build(${bpe})
run(${tokenlab} check-plugin ${bpe}/build/my_bpe.so)
grade(bpe-training ${bpe} my_bpe 100)

# new-segmenter: what the installed new-plugin writes.
set(seg ${WORK_DIR}/my_segmenter)
run(${tokenlab} new-plugin my_segmenter ${seg})
build(${seg})
grade(new-segmenter ${seg} my_segmenter 70)
configure_file(${SOURCE_DIR}/tests/grade/segmenter_solution.cpp ${seg}/my_segmenter.cpp COPYONLY)
build(${seg})
run(${tokenlab} check-plugin ${seg}/build/my_segmenter.so)
grade(new-segmenter ${seg} my_segmenter 100)
