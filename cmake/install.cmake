# What `cmake --install` puts under the prefix (README, "Using the C++ client from your project"):
#   client: libarrayhub-client (.so and .a), include/arrayhub/, the CMake package `arrayhub`
#           (arrayhub::client, shared; arrayhub::client_static) and arrayhub-client.pc;
#   server: arrayhubd, arrayhub-health, the systemd unit and its example configuration.
# The client part holds nothing of the CUDA build: the client never links the backends.
include(CMakePackageConfigHelpers)

set(ARRAYHUB_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/arrayhub")
# Where systemd looks for units of packages (/usr/lib/systemd/system) or of a local install
# (/usr/local/lib/systemd/system): lib/, not the multiarch libdir.
set(ARRAYHUB_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
  "Where the systemd unit is installed, relative to the prefix")

install(TARGETS arrayhub_client arrayhub_client_shared arrayhub_proto arrayhub_health_proto
                arrayhub_chunk_wire
  EXPORT arrayhub-targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT client
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT client NAMELINK_COMPONENT client)
install(DIRECTORY client_cpp/include/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT client)
install(EXPORT arrayhub-targets NAMESPACE arrayhub:: FILE arrayhubTargets.cmake
  DESTINATION "${ARRAYHUB_CMAKE_DIR}" COMPONENT client)
configure_package_config_file(cmake/arrayhubConfig.cmake.in
  "${PROJECT_BINARY_DIR}/arrayhubConfig.cmake" INSTALL_DESTINATION "${ARRAYHUB_CMAKE_DIR}")
# Before 1.0 a minor version may break the API, as the soname says (client_cpp/CMakeLists.txt).
write_basic_package_version_file("${PROJECT_BINARY_DIR}/arrayhubConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/arrayhubConfig.cmake"
              "${PROJECT_BINARY_DIR}/arrayhubConfigVersion.cmake"
  DESTINATION "${ARRAYHUB_CMAKE_DIR}" COMPONENT client)

# The .pc file finds its prefix from its own place, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH ARRAYHUB_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" ARRAYHUB_PC_TO_PREFIX "${ARRAYHUB_PC_TO_PREFIX}")
configure_file(cmake/arrayhub-client.pc.in "${PROJECT_BINARY_DIR}/arrayhub-client.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/arrayhub-client.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT client)

# A CUDA build links NVRTC, cuRAND, cuBLAS and cuSOLVER from the toolkit's lib64, outside the
# loader's default path: the installed daemon keeps that path, as the build tree's does.
set_target_properties(arrayhubd PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS arrayhubd arrayhub-health RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  COMPONENT server)
# The unit names the daemon by its path: the installed one's, under the prefix of this install
# (`cmake --install --prefix`, CPack's), so the unit is written when it is installed, in a
# folder of its own for each destination (ctest installs twice at once).
if(IS_ABSOLUTE "${ARRAYHUB_SYSTEMD_UNIT_DIR}")
  set(unit_dir "${ARRAYHUB_SYSTEMD_UNIT_DIR}")
else()
  set(unit_dir "\${CMAKE_INSTALL_PREFIX}/${ARRAYHUB_SYSTEMD_UNIT_DIR}")
endif()
install(CODE "
  file(READ \"${PROJECT_SOURCE_DIR}/deploy/systemd/arrayhubd.service\" unit)
  if(NOT unit MATCHES \"\nExecStart=/usr/local/bin/arrayhubd \")
    message(FATAL_ERROR \"deploy/systemd/arrayhubd.service: no ExecStart=/usr/local/bin/arrayhubd\")
  endif()
  string(REPLACE /usr/local/bin/arrayhubd \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/arrayhubd\"
    unit \"\${unit}\")
  string(MD5 destination \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(staging \"${PROJECT_BINARY_DIR}/systemd-unit-\${destination}\")
  file(WRITE \"\${staging}/arrayhubd.service\" \"\${unit}\")
  file(INSTALL \"\${staging}/arrayhubd.service\" DESTINATION \"${unit_dir}\")
  file(REMOVE_RECURSE \"\${staging}\")" COMPONENT server)
install(FILES deploy/systemd/arrayhubd.toml
  DESTINATION "${CMAKE_INSTALL_DATADIR}/arrayhub/examples" COMPONENT server)
