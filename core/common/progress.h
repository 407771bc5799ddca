#pragma once

#include <string>

namespace paretune {

/// The contract of a long job in core: the job calls report() from its own thread with the
/// fraction done (0..1) and a short message, and polls cancelled() at safe points; when it
/// returns true the job stops early and returns what it has. Implementations must be safe to
/// call from the worker thread (the Qt adapter forwards through queued signals).
struct Progress {
    virtual ~Progress();
    virtual void report(double fraction, const std::string& message) = 0;
    virtual bool cancelled() const = 0;
    /// A figure of the job at one step, for plots: a training epoch's loss, a search
    /// generation's normalised hypervolume. The default ignores it.
    virtual void sample(int step, double value);
};

} // namespace paretune
