# Small helpers so that every core module, test and benchmark is declared the same way.

# The layering of core/: a module may only depend on modules listed before it. A dependency on a
# later module (a cycle in the making) fails at configure time, with the offending pair named.
set(COMMLAB_CORE_LAYERS io numeric codec compress topology network collective train workload exec scenario views)

# commlab_core_module(NAME SOURCES ... DEPS ... [LIBS ...])
# Creates the static library commlab_<NAME> from core/<NAME>; DEPS are other core modules.
function(commlab_core_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  list(FIND COMMLAB_CORE_LAYERS ${name} self_index)
  if(self_index EQUAL -1)
    message(FATAL_ERROR "core module '${name}' is not in COMMLAB_CORE_LAYERS")
  endif()
  set(dep_targets)
  foreach(dep IN LISTS ARG_DEPS)
    list(FIND COMMLAB_CORE_LAYERS ${dep} dep_index)
    if(dep_index EQUAL -1 OR NOT dep_index LESS self_index)
      message(FATAL_ERROR "core/${name} may not depend on core/${dep}: the layering is "
                          "${COMMLAB_CORE_LAYERS} and a module uses only those before it")
    endif()
    list(APPEND dep_targets commlab_${dep})
  endforeach()
  if(NOT ARG_SOURCES)
    return()  # a module with no sources yet is simply absent
  endif()
  add_library(commlab_${name} STATIC ${ARG_SOURCES})
  target_include_directories(commlab_${name} PUBLIC ${PROJECT_SOURCE_DIR}/core)
  target_link_libraries(commlab_${name} PUBLIC ${dep_targets} ${ARG_LIBS})
  target_compile_options(commlab_${name} PRIVATE -Wall -Wextra)
  set_target_properties(commlab_${name} PROPERTIES COMMLAB_CORE_DEPS "${ARG_DEPS}")
endfunction()

# Test sources are compiled at -O1: the engine they drive is in the libraries (built with the
# configuration's flags), while a test file is mostly gtest macros and JSON literals, which -O3
# spends a fifth more of the cold build's test compile time on. Not -O0: Eigen expressions written
# in a test (a maxCoeff over Fashion-MNIST's 47 million pixels) run ten times slower unoptimised.
# Set to "" to compile tests with the configuration's flags.
set(COMMLAB_TEST_COMPILE_OPTIONS "-O1" CACHE STRING "Extra compile options for the test executables")

# commlab_test(NAME SOURCES ... LIBS ...): a GoogleTest executable whose tests ctest lists by name.
function(commlab_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;PROPERTIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  # Shared helpers are included as "support/NAME.h" from any depth of tests/.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE COMMLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                             COMMLAB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  target_compile_options(${name} PRIVATE ${COMMLAB_TEST_COMPILE_OPTIONS})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ${ARG_PROPERTIES})
endfunction()

# commlab_benchmark(NAME SOURCES ... LIBS ...): a Google Benchmark program in bench/.
function(commlab_benchmark name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} benchmark::benchmark)
endfunction()
