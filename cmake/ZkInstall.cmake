# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` puts where (GNUInstallDirs; the Debian packaging is
# written against exactly this layout, so change it with the packaging):
#
#   bin/                     zkd zkctl zklab zkbench
#   share/man/manN/          every man/NAME.N
#   share/doc/zk/examples/   zoo.cfg, the commented sample configuration
#   ZK_SYSTEMD_UNIT_DIR      zkd.service          (default lib/systemd/system)
#   ZK_SYSUSERS_DIR          zkd.conf, the user   (default lib/sysusers.d)
#   ZK_BASH_COMPLETION_DIR   bash completions     (share/bash-completion/completions)
#   lib/                     libzk_wire.a libzk_client.a libzk_recipes.a
#   include/zk/              their public headers: libzk/wire, libzk/client, recipes
#   lib/cmake/zk/            find_package(zk): zk::client, zk::recipes (zk::wire)
#   lib/pkgconfig/zk.pc      pkg-config --cflags --libs zk
#
# A relative directory is taken under the prefix, so `cmake --install build
# --prefix DIR` puts everything under DIR; an absolute one (e.g.
# -DZK_SYSTEMD_UNIT_DIR=/lib/systemd/system) is used as it is.
# The sources of the unit, the sysusers file and the sample config are in dist/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ZK_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "Where zkd.service is installed (relative: under the prefix)")
set(ZK_SYSUSERS_DIR "lib/sysusers.d" CACHE STRING
    "Where the sysusers.d file of the zkd user is installed (relative: under the prefix)")
set(ZK_BASH_COMPLETION_DIR "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" CACHE STRING
    "Where the bash completions are installed (relative: under the prefix)")

# The tools. An installed zklab starts the zkd beside it (zklab/process/zkd_lookup.h).
install(TARGETS ${ZK_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Man pages: every man/NAME.N into manN, but those of tools not built.
file(GLOB ZK_MAN_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/man/*.[1-9])
foreach(page IN LISTS ZK_MAN_PAGES)
  get_filename_component(name ${page} NAME_WLE)
  if(name IN_LIST ZK_LAB_TOOLS AND NOT ZK_BUILD_LAB_TOOLS)
    continue()
  endif()
  string(REGEX MATCH "[1-9]$" section ${page})
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()

# The sample configuration, which the operator copies to the unit's config path.
install(FILES ${PROJECT_SOURCE_DIR}/dist/zoo.cfg DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# zkd.service, with the installed zkd and ${sysconfdir}/zkd/zoo.cfg (with the
# prefix /usr: /usr/bin/zkd --config /etc/zkd/zoo.cfg).
set(ZK_UNIT_ZKD "${CMAKE_INSTALL_FULL_BINDIR}/zkd")
set(ZK_UNIT_CONFIG "${CMAKE_INSTALL_FULL_SYSCONFDIR}/zkd/zoo.cfg")
configure_file(${PROJECT_SOURCE_DIR}/dist/zkd.service.in ${PROJECT_BINARY_DIR}/dist/zkd.service
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/dist/zkd.service DESTINATION ${ZK_SYSTEMD_UNIT_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/dist/zkd.sysusers DESTINATION ${ZK_SYSUSERS_DIR}
        RENAME zkd.conf)

# Bash completion: completions/TOOL.bash as TOOL, the name bash-completion's
# loader looks for when TOOL is first completed.
foreach(tool IN LISTS ZK_TOOLS)
  install(FILES ${PROJECT_SOURCE_DIR}/completions/${tool}.bash
          DESTINATION ${ZK_BASH_COMPLETION_DIR}
          RENAME ${tool})
endforeach()

# ---- The client library and the recipes, as a CMake and pkg-config package --
set_target_properties(zk_wire PROPERTIES EXPORT_NAME wire)
set_target_properties(zk_client PROPERTIES EXPORT_NAME client)
set_target_properties(zk_recipes PROPERTIES EXPORT_NAME recipes)
install(TARGETS zk_wire zk_client zk_recipes EXPORT zkTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zk)

# The public headers: what a user includes, and what those include; the
# engine of the client (session, connection, dispatcher, watch tables) and the
# recipes' internals (recipes/README.md) stay out. The tree keeps its shape,
# so #include "libzk/client/client.h" works with -I<prefix>/include/zk.
set(ZK_PUBLIC_HEADERS
    libzk/wire/jute.h
    libzk/wire/multi.h
    libzk/wire/protocol.h
    libzk/wire/records.h
    libzk/client/client.h
    libzk/client/connect_string.h
    libzk/client/events.h
    libzk/client/result.h
    libzk/client/sasl.h
    libzk/client/tls.h
    libzk/client/sync_client.h
    recipes/barrier.h
    recipes/config.h
    recipes/counter.h
    recipes/double_barrier.h
    recipes/fencing.h
    recipes/group.h
    recipes/leader_election.h
    recipes/lock.h
    recipes/lock_hold.h
    recipes/lock_options.h
    recipes/protected_create.h
    recipes/queue.h
    recipes/rendezvous.h
    recipes/retry.h
    recipes/rw_lock.h
    recipes/simple_lock.h)
foreach(header IN LISTS ZK_PUBLIC_HEADERS)
  get_filename_component(header_dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zk/${header_dir})
endforeach()

set(ZK_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zk)
install(EXPORT zkTargets NAMESPACE zk:: FILE zkTargets.cmake DESTINATION ${ZK_CMAKE_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/zkConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/zkConfig.cmake
                              INSTALL_DESTINATION ${ZK_CMAKE_PACKAGE_DIR})
# 0.x: only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/zkConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/zkConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/zkConfigVersion.cmake
        DESTINATION ${ZK_CMAKE_PACKAGE_DIR})

# zk.pc: its paths are relative to the .pc file's place (${pcfiledir}), so the
# installed tree works wherever it is, as the CMake package does.
file(RELATIVE_PATH ZK_PC_PREFIX_FROM_PCDIR /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ZK_PC_PREFIX_FROM_PCDIR "${ZK_PC_PREFIX_FROM_PCDIR}")  # ../..
configure_file(${PROJECT_SOURCE_DIR}/cmake/zk.pc.in ${PROJECT_BINARY_DIR}/cmake/zk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/zk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
