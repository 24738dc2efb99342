# Install rules (GNUInstallDirs layout):
#   <libdir>/libbibop.so.N, libbibop.a      bibop under its own name
#   <libdir>/bibop/libgc.so.1 ...           the drop-in libraries (bdwgc's
#                                           sonames), in a private directory
#                                           so they never shadow the system's
#   <includedir>/bibop/{gc.h,gc/,bibop.h,boxroot.h}
#   <libdir>/pkgconfig/bibop.pc, bdw-gc.pc  (bdw-gc: bdwgc's name, bibop's
#                                           drop-in, with an rpath to it)
#   <libdir>/cmake/bibop/                   find_package(bibop): bibop::bibop,
#                                           bibop::static
#   <bindir>/bibop                          the command
# Drop-in libraries are the targets listed in BIBOP_DROPIN_TARGETS (set in
# src/CMakeLists.txt); adding a target there is all another one needs.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BIBOP_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/bibop)
set(BIBOP_INSTALL_DROPINDIR ${CMAKE_INSTALL_LIBDIR}/bibop)
set(BIBOP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/bibop)

# The build tree's targets point at the source headers; installed ones at
# the installed copies.
foreach(target bibop bibop_static ${BIBOP_DROPIN_TARGETS})
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>;$<INSTALL_INTERFACE:${BIBOP_INSTALL_INCLUDEDIR}>")
endforeach()
set_target_properties(bibop_static PROPERTIES EXPORT_NAME static)

install(TARGETS bibop bibop_static EXPORT bibopTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(TARGETS ${BIBOP_DROPIN_TARGETS}
  LIBRARY DESTINATION ${BIBOP_INSTALL_DROPINDIR} COMPONENT runtime)
install(TARGETS bibop_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${BIBOP_INSTALL_INCLUDEDIR}
  COMPONENT development FILES_MATCHING PATTERN "*.h")

# pkg-config files find the prefix from their own location (${pcfiledir}),
# so `cmake --install --prefix ELSEWHERE` and moved trees still work.
file(RELATIVE_PATH BIBOP_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
set(BIBOP_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(BIBOP_PC_INCLUDEDIR "\${prefix}/${BIBOP_INSTALL_INCLUDEDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(BIBOP_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(BIBOP_PC_INCLUDEDIR "${BIBOP_INSTALL_INCLUDEDIR}")
endif()
foreach(pc bibop bdw-gc)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
endforeach()

install(EXPORT bibopTargets NAMESPACE bibop:: DESTINATION ${BIBOP_INSTALL_CMAKEDIR}
  COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/bibopConfig.cmake.in
  ${PROJECT_BINARY_DIR}/bibopConfig.cmake INSTALL_DESTINATION ${BIBOP_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/bibopConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/bibopConfig.cmake ${PROJECT_BINARY_DIR}/bibopConfigVersion.cmake
  DESTINATION ${BIBOP_INSTALL_CMAKEDIR} COMPONENT development)
