# Run by CTest: every ELF file the build installs (the CLI, the libraries, the
# plugins, the MPI and Python modules), as it lies in the build tree, has a
# run path whose every element is absolute or starts at $ORIGIN. An empty
# element (CMake ends a build path it will rewrite at install with one) or a
# relative one is searched from the current directory: a build-tree tokenlab
# run in a directory holding a libicuuc.so.72 would load that one.
cmake_policy(SET CMP0007 NEW)  # keep the empty elements a list holds
find_program(READELF readelf REQUIRED)
file(GLOB_RECURSE candidates LIST_DIRECTORIES false
  ${BUILD_DIR}/bin/tokenlab ${BUILD_DIR}/lib/*.so ${BUILD_DIR}/lib/*.so.*)
set(checked 0)
foreach(file IN LISTS candidates)
  if(IS_SYMLINK ${file})
    continue()
  endif()
  execute_process(COMMAND ${READELF} -d ${file} OUTPUT_VARIABLE dynamic RESULT_VARIABLE failed
    ERROR_QUIET)
  if(failed)
    continue()  # not an ELF file
  endif()
  math(EXPR checked "${checked} + 1")
  string(REGEX MATCHALL "Library (runpath|rpath): \\[[^]]*\\]" paths "${dynamic}")
  foreach(path IN LISTS paths)
    string(REGEX REPLACE "^Library (runpath|rpath): \\[(.*)\\]$" "\\2" value "${path}")
    # Each element, with the empty ones kept: "a::b" and "a:" hold one.
    string(REPLACE ":" ";" elements "${value};")
    list(POP_BACK elements)  # the one the appended ";" made
    foreach(element IN LISTS elements)
      if(NOT element MATCHES "^(/|\\$ORIGIN)")
        message(FATAL_ERROR "${file}: its run path \"${value}\" has the element \"${element}\", "
          "which the loader searches from the current directory")
      endif()
    endforeach()
  endforeach()
endforeach()
if(checked LESS 3)
  message(FATAL_ERROR "found ${checked} ELF files under ${BUILD_DIR}: not a build tree?")
endif()
message(STATUS "${checked} ELF files, every run path absolute or from $ORIGIN")
