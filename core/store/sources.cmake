# The SQLite sample library (included by core/CMakeLists.txt).
target_sources(paretune_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/benchmark_drift.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sample_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema.cpp
)
target_link_libraries(paretune_core PRIVATE SQLite::SQLite3)
