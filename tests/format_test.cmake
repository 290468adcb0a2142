# Run by CTest: every C++ source must already be clang-formatted.
file(GLOB_RECURSE sources
  ${SOURCE_DIR}/framework/*.cpp ${SOURCE_DIR}/framework/*.hpp
  ${SOURCE_DIR}/algorithms/*.cpp ${SOURCE_DIR}/algorithms/*.hpp
  ${SOURCE_DIR}/plugins/*.cpp ${SOURCE_DIR}/plugins/*.hpp
  ${SOURCE_DIR}/tools/*.cpp ${SOURCE_DIR}/tools/*.hpp
  ${SOURCE_DIR}/tests/*.cpp ${SOURCE_DIR}/tests/*.hpp)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${sources}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run: clang-format -i <files>\n${err}")
endif()
