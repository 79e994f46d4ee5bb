# Fails when a file under core/ includes a Qt header, or when core/<module> includes a header of
# another module that its CMakeLists.txt does not declare in DEPS (commlab_core_module), which
# itself only admits modules before it in the layering (io <- numeric <- codec, ...): an include
# the build does not know about, or an upward one, is named here.
# Run by ctest: cmake -DSOURCE_DIR=... -DLAYERS=... -P layering_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies of this era: if(IN_LIST), list() keeps empty cells

include(${CMAKE_CURRENT_LIST_DIR}/core_deps.cmake)

foreach(module IN LISTS LAYERS)
  if(EXISTS ${SOURCE_DIR}/core/${module}/CMakeLists.txt)
    declared_deps(${module} deps_${module})
  endif()
endforeach()

file(GLOB_RECURSE files ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cpp)
set(problems "")
foreach(f IN LISTS files)
  file(RELATIVE_PATH rel ${SOURCE_DIR}/core ${f})
  string(REGEX MATCH "^[^/]+" module "${rel}")
  list(FIND LAYERS "${module}" self_index)
  file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line IN LISTS includes)
    if(line MATCHES "#[ \t]*include[ \t]*[<\"](Q[A-Za-z]|Qt)")
      string(APPEND problems "core/${rel}: includes Qt (${line}); core/ must build without Qt\n")
    endif()
    if(line MATCHES "#[ \t]*include[ \t]*\"([a-z_]+)/")
      set(target_module ${CMAKE_MATCH_1})
      list(FIND LAYERS "${target_module}" dep_index)
      if(dep_index EQUAL -1 OR target_module STREQUAL module)
        continue()
      endif()
      if(dep_index GREATER self_index)
        string(APPEND problems
               "core/${rel}: includes ${target_module}/, a later layer than ${module}/\n")
      elseif(NOT target_module IN_LIST deps_${module})
        string(APPEND problems "core/${rel}: includes ${target_module}/, which "
                               "core/${module}/CMakeLists.txt does not list in DEPS\n")
      endif()
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "layering violations:\n${problems}")
endif()
list(LENGTH files n)
message(STATUS "layering: ${n} core files checked, no Qt, every include of another module declared")
