# `cpack` (run in the build folder) makes a Debian package of the dashboard: what `cmake --install` installs,
# stripped. The trainer is not in it (it is built on each cluster from the sources inside the binary), so
# the package needs no LibTorch. Depends come from the binary's shared libraries (dpkg-shlibdeps), plus the
# plugins Qt loads at run time, which no library names.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME torchdeck)
set(CPACK_PACKAGE_VENDOR "The torchdeck developers")
set(CPACK_PACKAGE_CONTACT "The torchdeck developers <torchdeck@torchdeck.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "dashboard for deep-learning jobs on HPC clusters")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "torchdeck submits deep-learning jobs to Slurm and PBS clusters over SSH, builds its bundled LibTorch DDP\n"
  "trainer there or runs your own script, plots loss and epoch times live, follows logs and restarts runs\n"
  "from their checkpoints. A Qt desktop window, and the same from a terminal.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/torchdeck/torchdeck")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-sqlite")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnome-keyring")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
include(CPack)
