# What `cmake --install` puts where, and the Debian package: `cpack -G DEB` in a Release
# tree makes foyer_<version>_<arch>.deb (binary in /usr/bin, the config as a conffile, the
# unit, the system user `foyer` and /var/lib/foyer; packaging/deb/test.sh checks it).
include(GNUInstallDirs)
# `cmake --install` and cpack install what is built (`--target foyer`), without building
# every target first: the tests and benchmarks are not in the package.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

install(TARGETS foyer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES config/foyer.toml DESTINATION /etc/foyer)
# One unit file, whose ExecStart names /usr/local/bin/foyer: the installed copy names the
# binary where this install puts it (/usr/bin in the package).
install(CODE "
  file(READ \"${CMAKE_CURRENT_SOURCE_DIR}/packaging/systemd/foyer.service\" unit)
  string(REPLACE \"/usr/local/bin/foyer\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/foyer\" unit \"\${unit}\")
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system/foyer.service\" \"\${unit}\")
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system/foyer.service\")
")

set(CPACK_PACKAGE_NAME foyer)
set(CPACK_PACKAGE_VENDOR "Foyer")
set(CPACK_PACKAGE_CONTACT "Foyer maintainers <foyer@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "fair virtual waiting room in one binary")
set(CPACK_PACKAGE_DESCRIPTION "Foyer queues visitors to a sale fairly (FIFO or a verifiable lottery),
admits them at a rate that follows the site and hands them signed passes.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/foyer/foyer")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
# adduser for the postinst; the libraries come from dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_SOURCE_DIR}/packaging/deb/conffiles
    ${CMAKE_CURRENT_SOURCE_DIR}/packaging/deb/postinst
    ${CMAKE_CURRENT_SOURCE_DIR}/packaging/deb/prerm
    ${CMAKE_CURRENT_SOURCE_DIR}/packaging/deb/postrm)
include(CPack)
