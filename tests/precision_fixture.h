// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The small graph the precision tests lower (tst_precision, tst_int8): Conv + Relu, then a
// MatMul with a weight and an Add. The Conv and the MatMul can run in bf16 or int8.
#include "onnx_fixture.h"
#include "profile/plan_validation.h"

#include <string>
#include <string_view>

namespace precision_fixture {

/// `n` values in [-scale/2, scale/2), spread by a fixed rule, as ONNX text.
inline std::string values(int n, double scale = 1.0) {
    std::string text;
    for (int i = 0; i < n; ++i) {
        const double v = scale * (static_cast<double>((i * 37) % 101) / 101.0 - 0.5);
        text += (i ? ", " : "") + std::to_string(v);
    }
    return text;
}

inline paretune::Graph fixture() {
    return onnxFixture("(float[1,3,6,6] x) => (float[1,8] y) <float[4,3,3,3] w = {" +
                       values(108, 0.8) + "}, float[4] b = {" + values(4) +
                       "}, float[144,8] m = {" + values(1152, 0.2) + "}, float[8] c = {" +
                       values(8) +
                       "}, int64[2] shape = {1, 144}> {\n"
                       "  v = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n"
                       "  r = Relu (v)\n"
                       "  f = Reshape (r, shape)\n"
                       "  p = MatMul (f, m)\n"
                       "  y = Add (p, c)\n"
                       "}");
}

/// The first node of an op type, or kNone.
inline paretune::NodeId nodeOfType(const paretune::Graph& g, std::string_view op) {
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].opType == op) {
            return static_cast<paretune::NodeId>(n);
        }
    }
    return paretune::kNone;
}

/// Every node of `g` on cpu:0, each lowerable one in `precision`.
inline paretune::PlanToValidate planOnCpu0(const paretune::Graph& g, paretune::Variant precision) {
    paretune::PlanToValidate plan;
    plan.label = "plan 0";
    for (const paretune::Node& n : g.nodes) {
        plan.assignment.push_back(n.kind == paretune::NodeKind::Constant ? "" : "cpu:0");
    }
    plan.variants = paretune::lowerAll(g, precision);
    return plan;
}

/// Few runs and few accuracy sets: what the tests check does not depend on the timing.
inline paretune::ValidationOptions quickValidation() {
    paretune::ValidationOptions options;
    options.repeats = 2;
    options.warmup = 1;
    options.accuracySets = 3;
    return options;
}

} // namespace precision_fixture
