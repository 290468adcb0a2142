include(CMakePackageConfigHelpers)

install(TARGETS tokenlab_core tokenlab_text tokenlab_host tokenlab_study tokenlab_framework
  tokenlab_pretrained
  EXPORT tokenlabTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)

install(EXPORT tokenlabTargets
  NAMESPACE tokenlab::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tokenlab
  COMPONENT development)

configure_package_config_file(tools/cmake/tokenlabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tokenlabConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tokenlab)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tokenlabConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/tokenlabConfig.cmake
  ${PROJECT_BINARY_DIR}/tokenlabConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tokenlab
  COMPONENT development)
