# Sanitizer builds (the asan and fuzz presets set TOKENLAB_SANITIZE) define
# TOKENLAB_SANITIZE in every target, so that the plugin toolchain fingerprint
# (plugin_abi.hpp) records them: UBSan has no predefined macro. The registry then
# refuses a plugin whose sanitizers differ from the host's.
if(TOKENLAB_SANITIZE)
  add_compile_definitions(TOKENLAB_SANITIZE=1)
endif()

# tokenlab_add_plugin(<name> SOURCES <files...> [LIBRARIES <targets...>])
#
# Builds a segmenter plugin: a MODULE library named exactly <name>.so (the registry
# checks that the descriptor's name equals the file's base name), placed where the
# CLI looks for it in the build tree and in the install tree.
function(tokenlab_add_plugin name)
  cmake_parse_arguments(PLUGIN "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(target tokenlab_plugin_${name})
  add_library(${target} MODULE ${PLUGIN_SOURCES})
  target_link_libraries(${target} PRIVATE tokenlab::core ${PLUGIN_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${name}
    LIBRARY_OUTPUT_DIRECTORY ${TOKENLAB_PLUGIN_OUTPUT_DIR})
  tokenlab_run_path(${target} "$ORIGIN/../..")
  if(NOT TOKENLAB_SANITIZE)
    # Unresolved symbols fail the link, not a later dlopen.
    target_link_options(${target} PRIVATE "LINKER:-z,defs")
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${TOKENLAB_PLUGIN_INSTALL_DIR} COMPONENT runtime)
  set_property(GLOBAL APPEND PROPERTY TOKENLAB_PLUGIN_TARGETS ${target})
endfunction()

# tokenlab_add_algorithm(<name> SOURCES <files...> [LIBRARIES <targets...>])
#
# The pure algorithm code of a segmenter as a static, position-independent library
# that unit tests link directly (no dynamic loading).
function(tokenlab_add_algorithm name)
  cmake_parse_arguments(ALGO "" "" "SOURCES;LIBRARIES" ${ARGN})
  set(target tokenlab_algo_${name})
  add_library(${target} STATIC ${ALGO_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${target} PUBLIC tokenlab::core ${ALGO_LIBRARIES})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL APPEND PROPERTY TOKENLAB_ALGORITHM_TARGETS ${target})
endfunction()
