// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <utility>

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

/// Progress of one stage of a longer job: fractions mapped into [offset, offset + scale] of the
/// job's, messages prefixed with the stage's name; cancel and samples pass through.
class StageProgress : public Progress {
public:
    StageProgress(Progress* inner, double offset, double scale, std::string stage)
        : m_inner(inner), m_offset(offset), m_scale(scale), m_stage(std::move(stage)) {}
    void report(double fraction, const std::string& message) override {
        m_inner->report(m_offset + m_scale * fraction, m_stage + " " + message);
    }
    bool cancelled() const override { return m_inner->cancelled(); }
    void sample(int step, double value) override { m_inner->sample(step, value); }

private:
    Progress* m_inner;
    double m_offset;
    double m_scale;
    std::string m_stage;
};

} // namespace paretune
