# core/bundle: deployment bundles (partitions, export, verification, candidate selection).
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET GLOBAL libzip) # find_package(libzip) fails on Debian
target_sources(paretune_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/bundle_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bundle_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bundle_verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_partitioner.cpp
)
target_link_libraries(paretune_core PRIVATE PkgConfig::LIBZIP)
