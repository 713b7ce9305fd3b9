# Debian packages of the install's two components, by CPack (README, "Debian packages"):
#   arrayhubd               the server component: the daemon, its health probe, the systemd unit
#   libarrayhub-client-dev  the client component: libraries, headers, CMake and pkg-config files
# In a build configured with -DCMAKE_INSTALL_PREFIX=/usr:  cd build && cpack
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME arrayhub)
set(CPACK_PACKAGE_VENDOR ArrayHub)
set(ARRAYHUB_PACKAGE_MAINTAINER "ArrayHub maintainers" CACHE STRING
  "The Maintainer field of the Debian packages")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ARRAYHUB_PACKAGE_MAINTAINER}")
# The files go where the build put them for: the unit's ExecStart names the daemon's path.
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL server client)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Run-time dependencies from the binaries' shared libraries (dpkg-shlibdeps). CPack runs it with
# --ignore-missing-info, so libraries no package owns (a CUDA toolkit installed from NVIDIA's
# runfile) are left out of Depends: the GPU machine provides them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME arrayhubd)
set(CPACK_DEBIAN_SERVER_PACKAGE_SECTION net)
set(CPACK_DEBIAN_SERVER_DESCRIPTION
  "ArrayHub daemon: device-resident arrays over gRPC with NumPy semantics
arrayhubd owns arrays in GPU (CUDA backend) or host memory (CPU backend) and serves
them to C++ and Python clients; arrayhub-health is its health probe. The systemd unit
arrayhubd.service reads /etc/arrayhub/arrayhubd.toml (an example is in
${CMAKE_INSTALL_FULL_DATADIR}/arrayhub/examples) and the token file /etc/arrayhub/tokens.")

set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME libarrayhub-client-dev)
set(CPACK_DEBIAN_CLIENT_PACKAGE_SECTION libdevel)
# find_package(arrayhub) finds gRPC and protobuf through their CMake and pkg-config files.
set(CPACK_DEBIAN_CLIENT_PACKAGE_DEPENDS "libgrpc-dev, libgrpc++-dev, libprotobuf-dev")
set(CPACK_DEBIAN_CLIENT_DESCRIPTION
  "ArrayHub C++ client: library, headers, CMake package and pkg-config file
The C++20 client of arrayhubd, shared and static: find_package(arrayhub) gives
arrayhub::client and arrayhub::client_static; pkg-config knows it as arrayhub-client.")

include(CPack)
