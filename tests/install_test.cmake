# Run by CTest: install the build, build the example plugin against the install, and
# check it with the installed CLI.
include(${CMAKE_CURRENT_LIST_DIR}/run_command.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
file(GLOB plugin_files ${WORK_DIR}/build/*.so)
list(LENGTH plugin_files count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one plugin in ${WORK_DIR}/build, found: ${plugin_files}")
endif()
# The installed CLI finds the installed plugins beside itself.
run(${prefix}/bin/tokenlab plugins)
run(${prefix}/bin/tokenlab check-plugin ${plugin_files})
# The installed Python module: imported from the prefix (not the build tree), it
# finds the installed libraries (RPATH) and plugins beside itself, and trains.
if(PYTHON AND PYTHON_DIR)
  set(check [=[
import sys, tokenlab
prefix = sys.argv[1]
assert tokenlab.__file__.startswith(prefix), tokenlab.__file__
names = [p["name"] for p in tokenlab.plugins()]
assert "bpe" in names and all(p["file"].startswith(prefix) for p in tokenlab.plugins()), names
model = tokenlab.train("character", 50, corpus=sys.argv[2], progress=False)
assert model.decode(model.encode("the")) == "the"
print("installed module:", tokenlab.__file__, names)
]=])
  run(${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYTHON_DIR} TOKENLAB_PLUGIN_PATH=
    ${PYTHON} -c "${check}" ${prefix} ${CORPUS})
endif()
