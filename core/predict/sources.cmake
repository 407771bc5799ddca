# The learned performance predictor (included by core/CMakeLists.txt). Features, datasets,
# splits and metrics are torch-free and live in paretune_core; the network is paretune_predict,
# the only part that links LibTorch.
target_sources(paretune_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/accuracy_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/op_features.cpp
  ${CMAKE_CURRENT_LIST_DIR}/predictor_dataset.cpp
)
if(PARETUNE_WITH_TORCH)
  add_library(paretune_predict STATIC
    ${CMAKE_CURRENT_LIST_DIR}/library_costs.cpp
    ${CMAKE_CURRENT_LIST_DIR}/performance_predictor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/predictor_training.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_kernels.cpp)
  set_target_properties(paretune_predict PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
  target_include_directories(paretune_predict PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(paretune_predict
    PUBLIC paretune_core
    PRIVATE torch paretune_warnings)
endif()
