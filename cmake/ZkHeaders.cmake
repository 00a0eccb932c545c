# SPDX-License-Identifier: Apache-2.0
# Include roots, one per source directory: a target sees the headers of the
# directories of the targets it links, and no others (docs/design.md,
# "Dependencies").
#
# Every include is rooted at the repository (#include "zkd/tree/database.h"),
# yet no target has the repository itself on its include path. Instead each
# directory that holds headers gets a root of its own in the build tree,
#
#   <build>/include_roots/zkd_tree/zkd/tree -> <source>/zkd/tree   (a symlink)
#
# and the target of that directory carries the root as a usage requirement:
# PUBLIC for a library (so its users see it, and theirs when they link it
# PUBLIC), INTERFACE for a header-only one, PRIVATE for an executable. So
# #include "zkd/tree/database.h" resolves in exactly the targets that link
# zkd::tree, and fails to compile elsewhere.
#
# The unit is the directory: where one directory builds two targets (zkd/server:
# zkd::server_core and zkd::server; zkctl: zkctl_core and the zkctl binary),
# the lower one exports the root and the upper one links it. That the lower one
# could then include a header of the upper one is what scripts/check-layering
# catches (it knows which target each file belongs to).
#
# A directory that holds other parts below it (zkd/: the zkd binary's own
# headers beside zkd/tree, zkd/net, ...) gets a real directory in its root with
# a symlink per header instead, so that the root does not reach below it; its
# headers are globbed with CONFIGURE_DEPENDS, so a new one reconfigures.
#
# The roots and their targets are recorded (ZK_HEADER_ROOTS) for
# zk_write_layering_manifest() below.

# zk_library_headers(<target> [DIRECTORY <dir>]): <target> exports the root of
# <dir> (default: the current source directory).
function(zk_library_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DIRECTORY" "")
  if(NOT arg_DIRECTORY)
    set(arg_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  get_filename_component(source_dir ${arg_DIRECTORY} ABSOLUTE)
  file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${source_dir})
  string(REPLACE "/" "_" root_name ${dir})
  set(root ${PROJECT_BINARY_DIR}/include_roots/${root_name})
  get_property(made GLOBAL PROPERTY ZK_HEADER_ROOT_MADE_${root_name})
  if(NOT made)
    zk_make_include_root(${root} ${dir})
    set_property(GLOBAL PROPERTY ZK_HEADER_ROOT_MADE_${root_name} TRUE)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  elseif(type STREQUAL "EXECUTABLE")
    set(scope PRIVATE)
  else()
    set(scope PUBLIC)
  endif()
  # BUILD_INTERFACE: an installed package (cmake/ZkInstall.cmake) has its own
  # include directory, include/zk.
  target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${root}>)
  set_property(GLOBAL APPEND PROPERTY ZK_HEADER_ROOTS "${target}=${dir}")
endfunction()

# The root <root> of the source directory <dir> (relative to the repository).
function(zk_make_include_root root dir)
  set(link ${root}/${dir})
  get_filename_component(parent ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(GLOB below LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/${dir}/*/CMakeLists.txt)
  if(below)
    # A symlink per header, in a directory of the build tree.
    if(IS_SYMLINK ${link})
      file(REMOVE ${link})
    endif()
    file(MAKE_DIRECTORY ${link})
    file(GLOB stale LIST_DIRECTORIES false ${link}/*)
    foreach(old IN LISTS stale)
      if(IS_SYMLINK ${old})
        file(REMOVE ${old})
      endif()
    endforeach()
    file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.h)
    foreach(header IN LISTS headers)
      get_filename_component(name ${header} NAME)
      file(CREATE_LINK ${header} ${link}/${name} SYMBOLIC)
    endforeach()
    return()
  endif()
  if(IS_SYMLINK ${link})
    file(READ_SYMLINK ${link} target)
    if(target STREQUAL "${PROJECT_SOURCE_DIR}/${dir}")
      return()
    endif()
    file(REMOVE ${link})
  elseif(EXISTS ${link})
    message(FATAL_ERROR "zk: ${link} is in the way of an include root")
  endif()
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${dir} ${link} SYMBOLIC)
endfunction()

# zk_write_layering_manifest(<file>): what scripts/check-layering reads of the
# build, one target a line, tab-separated:
#   target  type  source dir  sources  link libraries  interface link libraries
# (lists separated by ';', sources relative to the repository, own targets by
# their real names), then "root <target> <dir>" for each include root and
# "alias <alias> <target>" for each alias used in a link list. Call it last,
# once every target is defined.
function(zk_write_layering_manifest file)
  set(lines "")
  set(aliases "")
  zk_collect_targets(${PROJECT_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|INTERFACE_LIBRARY)$")
      continue()
    endif()
    get_target_property(source_dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${source_dir})
    set(sources "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(listed ${target} SOURCES)
      foreach(source IN LISTS listed)
        if(source MATCHES "^\\$<")
          continue()
        endif()
        get_filename_component(path ${source} ABSOLUTE BASE_DIR ${source_dir})
        file(RELATIVE_PATH path ${PROJECT_SOURCE_DIR} ${path})
        list(APPEND sources ${path})
      endforeach()
    endif()
    set(link_columns "")
    foreach(property IN ITEMS LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      set(resolved "")
      if(property STREQUAL "LINK_LIBRARIES" AND type STREQUAL "INTERFACE_LIBRARY")
        set(libraries "")
      else()
        get_target_property(libraries ${target} ${property})
      endif()
      foreach(library IN LISTS libraries)
        # A static library's PRIVATE links are in its interface only to be
        # linked ($<LINK_ONLY:...>): they give no headers.
        if(library STREQUAL "" OR library MATCHES "(-NOTFOUND$|^\\$<LINK_ONLY:)")
          continue()
        endif()
        if(TARGET ${library})
          get_target_property(real ${library} ALIASED_TARGET)
          if(real)
            list(APPEND aliases "alias\t${library}\t${real}")
            set(library ${real})
          endif()
        endif()
        list(APPEND resolved ${library})
      endforeach()
      string(REPLACE ";" "," resolved "${resolved}")
      string(APPEND link_columns "\t${resolved}")
    endforeach()
    string(REPLACE ";" "," sources "${sources}")
    list(APPEND lines "target\t${target}\t${type}\t${dir}\t${sources}${link_columns}")
  endforeach()
  get_property(roots GLOBAL PROPERTY ZK_HEADER_ROOTS)
  foreach(root IN LISTS roots)
    string(REPLACE "=" "\t" root "${root}")
    list(APPEND lines "root\t${root}")
  endforeach()
  list(REMOVE_DUPLICATES aliases)
  list(APPEND lines ${aliases})
  string(JOIN "\n" text ${lines})
  file(CONFIGURE OUTPUT ${file} CONTENT "${text}\n" @ONLY)
endfunction()

# The build system targets of <dir> and every directory below it, into <out>.
function(zk_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirectories DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    zk_collect_targets(${subdirectory} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()
