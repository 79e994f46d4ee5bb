# The Python module `commlab` (pybind11, python/) and its ctest checks. Included twice from the
# top-level CMakeLists.txt: before core/ (find Python and pybind11, declare COMMLAB_BUILD_PYTHON and
# turn on -fPIC, which every core library linked into a shared module needs) and, through
# commlab_add_python_module(), after app/. Without Python 3 headers or pybind11 the option is OFF
# and the rest of the build does not change.

# Debian's interpreter has NumPy and torch; a pyenv python3 first on PATH may have neither.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
if(Python3_FOUND)
  find_package(pybind11 2.6 CONFIG QUIET)
endif()
set(COMMLAB_PYTHON_FOUND OFF)
if(Python3_FOUND AND pybind11_FOUND)
  set(COMMLAB_PYTHON_FOUND ON)
endif()
option(COMMLAB_BUILD_PYTHON "Build the Python module commlab (needs Python 3 headers and pybind11)"
       ${COMMLAB_PYTHON_FOUND})
if(COMMLAB_BUILD_PYTHON AND NOT COMMLAB_PYTHON_FOUND)
  message(WARNING "COMMLAB_BUILD_PYTHON: Python 3 development files or pybind11 not found "
                  "(apt-get install python3-dev pybind11-dev): the Python module is not built")
  set(COMMLAB_BUILD_PYTHON OFF)
endif()
if(COMMLAB_BUILD_PYTHON)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
endif()

function(commlab_add_python_module)
  if(NOT COMMLAB_BUILD_PYTHON)
    return()
  endif()
  set(py_dir ${PROJECT_SOURCE_DIR}/python)
  file(GLOB module_sources CONFIGURE_DEPENDS ${py_dir}/src/*.cpp)
  pybind11_add_module(commlab_python MODULE ${module_sources})
  target_include_directories(commlab_python PRIVATE ${py_dir}/src)
  target_link_libraries(commlab_python PRIVATE commlab_core)
  target_compile_options(commlab_python PRIVATE -Wall -Wextra)
  # The package: python/commlab/*.py next to the extension _commlab in one folder, so that
  # PYTHONPATH=<build>/python imports the built module with its Python helpers.
  set(package_dir ${PROJECT_BINARY_DIR}/python/commlab)
  set_target_properties(commlab_python PROPERTIES OUTPUT_NAME _commlab LIBRARY_OUTPUT_DIRECTORY
                                                                       ${package_dir})
  # The modules, their type stubs (.pyi: the extension's API, typed) and py.typed (PEP 561).
  file(GLOB package_files CONFIGURE_DEPENDS ${py_dir}/commlab/*.py ${py_dir}/commlab/*.pyi
       ${py_dir}/commlab/py.typed)
  foreach(file IN LISTS package_files)
    get_filename_component(name ${file} NAME)
    configure_file(${file} ${package_dir}/${name} COPYONLY)
  endforeach()
  # commlab.__version__: the project's version, written at configure time.
  file(CONFIGURE OUTPUT ${package_dir}/_version.py
       CONTENT "\"\"\"The version of CommLab this package was built from.\"\"\"\n__version__ = \"@PROJECT_VERSION@\"\n")
  set(COMMLAB_PYTHONPATH ${PROJECT_BINARY_DIR}/python PARENT_SCOPE)

  # Installed into the interpreter's platform-specific site directory under the prefix: on Debian
  # the system scheme (lib/python3/dist-packages, what a .deb must use; the default scheme there
  # is /usr/local's), elsewhere posix_prefix (lib/python3.X/site-packages).
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
            "import sysconfig; s = 'deb_system' if 'deb_system' in sysconfig.get_scheme_names() else 'posix_prefix'; print(sysconfig.get_path('platlib', s, vars={'platbase': '', 'base': ''}).lstrip('/'))"
    OUTPUT_VARIABLE site_dir OUTPUT_STRIP_TRAILING_WHITESPACE)
  install(TARGETS commlab_python LIBRARY DESTINATION ${site_dir}/commlab COMPONENT python)
  install(FILES ${package_files} ${package_dir}/_version.py DESTINATION ${site_dir}/commlab
          COMPONENT python)

  if(COMMLAB_BUILD_TESTS)
    # pytest files: every test reported by name in ctest's log (-v); skipped with a reason when
    # the module or a package it needs is missing.
    foreach(test bridge_test hooks_test test_api test_boundary test_packaging)
      add_test(NAME python.${test}
               COMMAND ${Python3_EXECUTABLE} -m pytest -v -p no:cacheprovider ${py_dir}/tests/${test}.py
               WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
      set_tests_properties(python.${test} PROPERTIES
        ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;OMP_NUM_THREADS=1;COMMLAB_CLI=$<TARGET_FILE:commlab-cli>;COMMLAB_BUILD_DIR=${PROJECT_BINARY_DIR}"
        TIMEOUT 300)
    endforeach()
  endif()
endfunction()
