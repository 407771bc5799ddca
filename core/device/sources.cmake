# core/device: CPU discovery (libcpuinfo), the device list, fingerprints and micro-benchmarks.
target_sources(paretune_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_fingerprint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/micro_benchmark.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvml_energy.cpp
)
target_link_libraries(paretune_core PRIVATE PkgConfig::CPUINFO ${CMAKE_DL_LIBS})
# The LibTorch version CMake found (torch cannot be included in paretune_core) goes into the
# device fingerprint's software stack; only this file sees it.
if(PARETUNE_WITH_TORCH AND DEFINED Torch_VERSION)
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/device_fingerprint.cpp APPEND PROPERTY
    COMPILE_DEFINITIONS PARETUNE_TORCH_VERSION="${Torch_VERSION}")
endif()
# The GEMM and triad kernels need the vectoriser at full strength (RelWithDebInfo is -O2).
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/micro_benchmark.cpp APPEND PROPERTY
  COMPILE_OPTIONS -O3)
