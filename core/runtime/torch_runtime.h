// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The engine's LibTorch parts live in a module, libparetune-torch.so, that is opened the first
// time a workflow needs it (profiling, plan execution, the learned predictor). Everything else
// (import, search, the sample library, bundles) runs without loading LibTorch, whose static
// operator registration alone costs about 0.4 s per process start.
//
// The public entry points stay where they were (profileModel, PlanExecutor, executeGraph,
// PerformancePredictor, measureDispatchOverheadUs, torchHasCuda); their core definitions call
// through torchRuntime(). Only core/runtime/torch_module.cpp and the LibTorch files implement
// this interface.
#include "device/micro_benchmark.h"
#include "graph/graph.h"
#include "predict/performance_predictor.h"
#include "profile/graph_executor.h"
#include "profile/profile_model.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace paretune {

struct Progress;
struct PredictorRecord;

/// The CUDA side of the loaded module's LibTorch.
struct TorchCudaInfo {
    bool built = false;      ///< the module was compiled against a LibTorch with CUDA
    std::string cudaVersion; ///< the CUDA LibTorch was built with, e.g. "13.2"; empty without
    int cudnnVersion = 0;    ///< the cuDNN LibTorch loaded, e.g. 92600; 0 when none
    int deviceCount = 0;     ///< CUDA devices LibTorch sees (0 without a driver or a GPU)
};

/// What the module provides. The object lives as long as the process; its functions may be
/// called from any thread. Failures are InputError for unusable input, other std::exceptions
/// for internal errors (LibTorch's own errors arrive as std::runtime_error).
class TorchRuntime {
public:
    virtual ~TorchRuntime() = default;

    virtual std::string libtorchVersion() const = 0;
    virtual bool hasCuda() const = 0;

    virtual ProfileResult profileModel(const Graph& graph, const ProfileOptions& options,
                                       Progress* progress) const = 0;
    virtual NamedTensors executeGraph(const Graph& graph, const NamedTensors& inputs,
                                      const ExecutionDevice& device,
                                      const ExecuteOptions& options) const = 0;
    virtual std::unique_ptr<PlanExecutorEngine>
    planExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                 std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order,
                 const NamedTensors& inputs, const ExecuteOptions& options) const = 0;
    virtual double dispatchOverheadUs(const std::vector<int>& cpus) const = 0;
    virtual TorchCudaInfo cudaInfo() const = 0;
    /// Empty when LibTorch can run on CUDA device `cudaIndex`; else why not (names the flavour).
    virtual std::string cudaUnusable(int cudaIndex) const = 0;
    virtual GpuMicroBenchmark gpuMicroBenchmark(int cudaIndex, bool quick) const = 0;
    /// Empty when this LibTorch's CPU kernels run a Conv and a matrix product in float16; else
    /// which does not, in LibTorch's words (tried once on tiny tensors, then remembered).
    virtual std::string cpuHalfRefusal() const = 0;

    virtual std::unique_ptr<PredictorEngine>
    trainPredictor(const PredictorDataset& dataset, std::span<const std::size_t> rows,
                   const PredictorOptions& options,
                   const PerformancePredictor::EpochCallback& onEpoch) const = 0;
    virtual std::unique_ptr<PredictorEngine> loadPredictor(const PredictorRecord& record) const = 0;
};

/// The module could not be loaded (not built, not installed, or from another build). The
/// message lists every place that was tried.
class TorchUnavailable : public std::runtime_error {
public:
    explicit TorchUnavailable(const std::string& message) : std::runtime_error(message) {}
};

/// Loads the module on the first call (thread-safe; later calls return the same object) and
/// returns its runtime. Before loading, bounds OpenMP's spinning (GOMP_SPINCOUNT=5000) unless
/// the environment already says otherwise: LibTorch's OpenMP reads it once, when it is loaded;
/// threads spinning long slowed other devices' operators by 4-32 ms, threads that never spin
/// made every parallel region wake them; and OpenBLAS's (OPENBLAS_THREAD_TIMEOUT=4), whose idle
/// threads spun 0.1 s beside a device's OpenMP threads (see common/openmp_wait.h).
/// The module is searched at $PARETUNE_TORCH_MODULE, beside the installed binaries
/// (<bindir>/../<libdir>/paretune) and in the build tree. Throws TorchUnavailable.
const TorchRuntime& torchRuntime();

/// True once torchRuntime() has loaded the module in this process (never loads it).
bool torchRuntimeLoaded();

/// What the build wrote beside the module (libparetune-torch.flavour): the LibTorch version it
/// was compiled against and whether that LibTorch has CUDA. Read without loading LibTorch, from
/// the module torchRuntime() would load first; none when no module or no such file is found.
struct TorchModuleFlavour {
    std::string modulePath;
    std::string libtorchVersion; ///< e.g. "1.13.1", "2.15.0"
    bool cuda = false;
};
std::optional<TorchModuleFlavour> torchModuleFlavour();

/// One sentence for messages that refuse a CUDA device: which flavour this Paretune's LibTorch
/// module is, and how to get the CUDA one (`scripts/install-deps --cuda`, `scripts/dev
/// build-cuda`, PARETUNE_TORCH_MODULE). Never loads LibTorch.
std::string torchFlavourAdvice();

/// The message for a `--device cuda:K` that cannot be profiled or executed on: `id` with how many
/// CUDA devices this machine has (`cudaDevices`, from discovery) and torchFlavourAdvice(). Empty
/// when `id` is not a CUDA id, or names an attached device and the module is the CUDA flavour.
std::string cudaDeviceRefusal(const std::string& id, int cudaIndex, int cudaDevices);

/// The ABI the module and its loader must agree on; raised when TorchRuntime or a type it
/// passes changes layout.
inline constexpr std::uint32_t kTorchRuntimeAbi = 3;

} // namespace paretune

/// The module's only entry point: its runtime when `abi` is the one it was built with, else
/// null. `version` receives the module's PARETUNE_VERSION.
extern "C" const paretune::TorchRuntime* paretune_torch_runtime(std::uint32_t abi,
                                                                const char** version);
