# Install rules and the CPack .deb. Layout under the prefix (/usr in the .deb):
#   bin/commlab-cli, bin/commlab (the GUI, when built)
#   share/commlab/samples   scenario files; both programs look for ../share/commlab next to
#                           their executable first (docs/install.md), so no source tree is needed
#   share/commlab/docs      the documentation (the GUI's Help menu opens samples/../docs)
#   share/man/man1          pages generated at build time from each subcommand's --help
#   share/applications, share/metainfo, share/icons/hicolor/scalable/apps   desktop integration
# Fashion-MNIST, the data the samples train on, is Debian's dataset-fashion-mnist (a dependency).
include(GNUInstallDirs)

set(COMMLAB_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/commlab)
set(COMMLAB_APP_ID io.commlab.CommLab)

install(TARGETS commlab-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET commlab)
  install(TARGETS commlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples/ DESTINATION ${COMMLAB_SHARE_DIR}/samples
        USE_SOURCE_PERMISSIONS)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${COMMLAB_SHARE_DIR}/docs)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${COMMLAB_SHARE_DIR})

# Man pages: regenerated whenever a program is rebuilt (their --help is the source).
set(COMMLAB_MAN_DIR ${PROJECT_BINARY_DIR}/man/man1)
set(man_gui "")
set(man_deps commlab-cli)
if(TARGET commlab)
  set(man_gui -DGUI=$<TARGET_FILE:commlab>)
  list(APPEND man_deps commlab)
endif()
add_custom_command(
  OUTPUT ${COMMLAB_MAN_DIR}/commlab-cli.1
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${COMMLAB_MAN_DIR}
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:commlab-cli> ${man_gui} -DOUT_DIR=${COMMLAB_MAN_DIR}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/man_from_help.cmake
  DEPENDS ${man_deps} ${PROJECT_SOURCE_DIR}/cmake/man_from_help.cmake
  COMMENT "Man pages from --help")
add_custom_target(man_pages ALL DEPENDS ${COMMLAB_MAN_DIR}/commlab-cli.1)
install(DIRECTORY ${COMMLAB_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

if(TARGET commlab)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/${COMMLAB_APP_ID}.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  # The AppStream release list is written by hand (a release has a date and notes); a version bump
  # in project() without its <release> entry is caught here rather than in a published package.
  file(READ ${PROJECT_SOURCE_DIR}/resources/${COMMLAB_APP_ID}.metainfo.xml metainfo_text)
  string(FIND "${metainfo_text}" "<release version=\"${PROJECT_VERSION}\"" release_at)
  if(release_at EQUAL -1)
    message(FATAL_ERROR "resources/${COMMLAB_APP_ID}.metainfo.xml has no <release version=\""
                        "${PROJECT_VERSION}\"> entry: add one for the version in project()")
  endif()
  install(FILES ${PROJECT_SOURCE_DIR}/resources/${COMMLAB_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/commlab.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
          RENAME ${COMMLAB_APP_ID}.svg)
endif()

# cpack -G DEB --config BUILD/CPackConfig.cmake: one package, dependencies found by
# dpkg-shlibdeps from the binaries (plus the data set the samples read).
set(CPACK_PACKAGE_NAME commlab)
set(CPACK_PACKAGE_VENDOR "CommLab")
set(CPACK_PACKAGE_CONTACT "CommLab maintainers <maintainers@commlab.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "laboratory for the communication of distributed training (collectives, codecs, trimming)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "dataset-fashion-mnist")
include(CPack)
