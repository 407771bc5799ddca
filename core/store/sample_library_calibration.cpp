// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: the ranges of a model's activations over calibration inputs, which the int8
// variant's activation scales come from (graph/precision.h).
#include "sample_library.h"

#include "common/input_error.h"
#include "library_connection.h"
#include "value_checks.h"

#include <cmath>

namespace paretune {

using store::kFingerprintLength;
using store::orNow;
using store::Query;
using store::requireKey;
using store::WriteTransaction;

void SampleLibrary::addActivationRanges(std::span<const ActivationRangeRecord> rows) {
    for (const ActivationRangeRecord& r : rows) {
        requireKey(r.modelFingerprint, kFingerprintLength, "activation range: model fingerprint");
        if (r.tensorName.empty() || r.inputs.empty()) {
            throw InputError("activation range: needs a tensor name and the inputs");
        }
        if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || r.lo > r.hi) {
            throw InputError("activation range of tensor '" + r.tensorName + "': [" +
                             std::to_string(r.lo) + ", " + std::to_string(r.hi) +
                             "] is not a finite range");
        }
        if (!model(r.modelFingerprint)) {
            throw InputError("activation range: model " + r.modelFingerprint + " is not stored");
        }
    }
    WriteTransaction transaction(*m_impl);
    for (const ActivationRangeRecord& r : rows) {
        Query q(*m_impl,
                m_impl->statement(
                    "INSERT INTO activation_ranges(model_fingerprint, tensor_name, inputs, lo, hi, "
                    "measured_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(model_fingerprint, "
                    "inputs, tensor_name) DO UPDATE SET lo = excluded.lo, hi = excluded.hi, "
                    "measured_at = excluded.measured_at"),
                "store an activation range");
        q.bind(1, r.modelFingerprint)
            .bind(2, r.tensorName)
            .bind(3, r.inputs)
            .bind(4, r.lo)
            .bind(5, r.hi)
            .bind(6, orNow(r.measuredAt));
        if (!q.run()) {
            throw InputError("activation range of tensor '" + r.tensorName +
                             "' was refused by the library");
        }
    }
    transaction.commit();
}

std::vector<ActivationRangeRecord>
SampleLibrary::activationRanges(std::string_view modelFingerprint, std::string_view inputs) const {
    Query q(*m_impl,
            m_impl->statement("SELECT model_fingerprint, tensor_name, inputs, lo, hi, measured_at "
                              "FROM activation_ranges WHERE model_fingerprint = ?1 AND inputs = "
                              "?2 ORDER BY tensor_name"),
            "read activation ranges");
    q.bind(1, modelFingerprint).bind(2, inputs);
    std::vector<ActivationRangeRecord> result;
    while (q.step()) {
        result.push_back({q.text(0), q.text(1), q.text(2), q.real(3), q.real(4), q.text(5)});
    }
    return result;
}

std::vector<std::string>
SampleLibrary::activationRangeInputs(std::string_view modelFingerprint) const {
    Query q(*m_impl,
            m_impl->statement("SELECT inputs FROM activation_ranges WHERE model_fingerprint = ?1 "
                              "GROUP BY inputs ORDER BY MAX(measured_at) DESC, inputs"),
            "read activation ranges");
    q.bind(1, modelFingerprint);
    std::vector<std::string> result;
    while (q.step()) {
        result.push_back(q.text(0));
    }
    return result;
}

} // namespace paretune
