// SPDX-License-Identifier: GPL-3.0-or-later
#include "schema.h"

#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paretune::store {

namespace {

// Version 1: the tables of DESIGN.md "Data model". Fingerprints and signatures are the keys;
// perf_samples rows are never deleted, a device whose micro-benchmarks drift gets its samples
// flagged stale (and the event recorded in stale_marks).
constexpr const char* kVersion1 = R"sql(
CREATE TABLE devices(
  fingerprint   TEXT PRIMARY KEY NOT NULL,
  kind          TEXT NOT NULL,
  name          TEXT NOT NULL,
  spec_json     TEXT NOT NULL DEFAULT '{}',
  software_json TEXT NOT NULL DEFAULT '{}',
  created_at    TEXT NOT NULL
);
CREATE TABLE models(
  fingerprint TEXT PRIMARY KEY NOT NULL,
  name        TEXT NOT NULL,
  source_path TEXT NOT NULL,
  node_count  INTEGER NOT NULL,
  imported_at TEXT NOT NULL
);
CREATE TABLE op_signatures(
  signature   TEXT PRIMARY KEY NOT NULL,
  op_type     TEXT NOT NULL,
  attrs_json  TEXT NOT NULL DEFAULT '{}',
  shapes_json TEXT NOT NULL DEFAULT '{}',
  flops       REAL NOT NULL,
  bytes       INTEGER NOT NULL
);
CREATE TABLE perf_samples(
  id                 INTEGER PRIMARY KEY,
  model_fingerprint  TEXT NOT NULL REFERENCES models(fingerprint),
  device_fingerprint TEXT NOT NULL REFERENCES devices(fingerprint),
  op_signature       TEXT NOT NULL REFERENCES op_signatures(signature),
  op_meta            TEXT NOT NULL DEFAULT '{}',
  shape_tuple        TEXT NOT NULL DEFAULT '',
  config_json        TEXT NOT NULL DEFAULT '{}',
  latency_us         REAL NOT NULL,
  latency_p10_us     REAL,
  latency_p90_us     REAL,
  peak_memory_mb     REAL,
  energy_uj          REAL,
  energy_source      TEXT NOT NULL DEFAULT '',
  repeats            INTEGER NOT NULL,
  sample_time        TEXT NOT NULL,
  tool_version       TEXT NOT NULL,
  stale              INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX perf_samples_by_signature ON perf_samples(op_signature, device_fingerprint);
CREATE INDEX perf_samples_by_model ON perf_samples(model_fingerprint);
CREATE INDEX perf_samples_by_device ON perf_samples(device_fingerprint);
CREATE TABLE stale_marks(
  id                 INTEGER PRIMARY KEY,
  device_fingerprint TEXT NOT NULL REFERENCES devices(fingerprint),
  marked_at          TEXT NOT NULL,
  reason             TEXT NOT NULL,
  sample_count       INTEGER NOT NULL
);
CREATE TABLE predictors(
  id             INTEGER PRIMARY KEY,
  created_at     TEXT NOT NULL,
  train_set_json TEXT NOT NULL,
  metrics_json   TEXT NOT NULL,
  weights        BLOB
);
CREATE TABLE plans(
  id                INTEGER PRIMARY KEY,
  model_fingerprint TEXT NOT NULL REFERENCES models(fingerprint),
  device_set_json   TEXT NOT NULL,
  objectives_json   TEXT NOT NULL,
  assignment_json   TEXT NOT NULL,
  source            TEXT NOT NULL,
  created_at        TEXT NOT NULL
);
CREATE INDEX plans_by_model ON plans(model_fingerprint);
)sql";

// Version 2: the micro-benchmark vectors measured on each device. The latest row flagged
// is_reference is what a new measurement is compared with; a drift beyond the threshold marks
// the device's samples stale and makes the new vector the reference.
constexpr const char* kVersion2 = R"sql(
CREATE TABLE device_benchmarks(
  id                 INTEGER PRIMARY KEY,
  device_fingerprint TEXT NOT NULL REFERENCES devices(fingerprint),
  measured_at        TEXT NOT NULL,
  gemm_gflops        REAL NOT NULL CHECK(gemm_gflops > 0),
  memory_bw_gbs      REAL NOT NULL CHECK(memory_bw_gbs > 0),
  dispatch_us        REAL CHECK(dispatch_us IS NULL OR dispatch_us > 0),
  is_reference       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX device_benchmarks_by_device ON device_benchmarks(device_fingerprint, is_reference);
)sql";

// Version 3: the contention between two real devices that can run at the same time (disjoint
// CPU sets), measured by the co-run benchmark: how much the device's nodes slow down while the
// other device runs. Directed (device slowed beside the other); the newest row of a pair is the
// one in use. The four raw slowdowns are kept beside the factor the simulator applies.
constexpr const char* kVersion3 = R"sql(
CREATE TABLE device_contention(
  id                 INTEGER PRIMARY KEY,
  device_fingerprint TEXT NOT NULL REFERENCES devices(fingerprint),
  beside_fingerprint TEXT NOT NULL REFERENCES devices(fingerprint),
  measured_at        TEXT NOT NULL,
  factor             REAL NOT NULL CHECK(factor >= 1),
  gemm_beside_gemm   REAL NOT NULL CHECK(gemm_beside_gemm > 0),
  gemm_beside_triad  REAL NOT NULL CHECK(gemm_beside_triad > 0),
  triad_beside_gemm  REAL NOT NULL CHECK(triad_beside_gemm > 0),
  triad_beside_triad REAL NOT NULL CHECK(triad_beside_triad > 0),
  CHECK(device_fingerprint <> beside_fingerprint)
);
CREATE INDEX device_contention_by_pair
  ON device_contention(device_fingerprint, beside_fingerprint);
)sql";

// Version 4: the rounds of `paretune tune`, one row per round committed: what was searched,
// validated and measured (the plans, their in-plan node times). A rerun with the same settings
// (the key) resumes after the last stored round.
constexpr const char* kVersion4 = R"sql(
CREATE TABLE tune_rounds(
  id                INTEGER PRIMARY KEY,
  tune_key          TEXT NOT NULL,
  round             INTEGER NOT NULL CHECK(round >= 0),
  model_fingerprint TEXT NOT NULL REFERENCES models(fingerprint),
  record_json       TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  UNIQUE(tune_key, round)
);
)sql";

// Version 5: samples are unique by what identifies a measurement (sample_key: a hash of its
// model, device, signature, node, shapes, configuration and time, computed by the library), so
// that two writers storing the same sample, or a file imported twice, store it once; the
// database enforces it. profile_jobs is the queue `paretune worker` drains: a job is claimed
// by one worker for a lease (seconds since the epoch by the database's clock) that the worker
// renews while it measures; a job whose lease ran out goes to the next worker.
constexpr const char* kVersion5 = R"sql(
ALTER TABLE perf_samples ADD COLUMN sample_key TEXT;
CREATE UNIQUE INDEX perf_samples_by_key ON perf_samples(sample_key);
CREATE TABLE profile_jobs(
  id                 INTEGER PRIMARY KEY,
  model_fingerprint  TEXT NOT NULL,
  model_name         TEXT NOT NULL,
  model_onnx         BLOB NOT NULL,
  device_fingerprint TEXT NOT NULL,
  options_json       TEXT NOT NULL DEFAULT '{}',
  state              TEXT NOT NULL DEFAULT 'queued'
                     CHECK(state IN ('queued', 'running', 'done', 'failed')),
  queued_at          TEXT NOT NULL,
  worker             TEXT NOT NULL DEFAULT '',
  lease_expires      REAL,
  attempts           INTEGER NOT NULL DEFAULT 0,
  finished_at        TEXT NOT NULL DEFAULT '',
  result_json        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX profile_jobs_by_state ON profile_jobs(state, device_fingerprint, id);
)sql";

// Version 6: how much lowering one node of a model to another precision moves the model's
// outputs (the sensitivity table the search estimates a plan's accuracy from), per inputs.
constexpr const char* kVersion6 = R"sql(
CREATE TABLE precision_sensitivity(
  model_fingerprint TEXT NOT NULL REFERENCES models(fingerprint),
  node_name         TEXT NOT NULL,
  precision         TEXT NOT NULL,
  inputs            TEXT NOT NULL,
  deviation_pct     REAL NOT NULL CHECK(deviation_pct >= 0),
  measured_at       TEXT NOT NULL,
  PRIMARY KEY(model_fingerprint, precision, inputs, node_name)
);
)sql";

// Version 7: a GPU's link to the host as its micro-benchmark measured it (pinned copies each
// way, pageable ones, a small copy's latency), beside its GEMM and bandwidth figures; NULL for a
// CPU. The
// search puts the newest figures in place of the catalog's modelled link. And the ranges of a
// model's activations over calibration inputs, which the int8 variant's scales come from.
constexpr const char* kVersion7 = R"sql(
CREATE TABLE activation_ranges(
  model_fingerprint TEXT NOT NULL REFERENCES models(fingerprint),
  tensor_name       TEXT NOT NULL,
  inputs            TEXT NOT NULL,
  lo                REAL NOT NULL,
  hi                REAL NOT NULL CHECK(hi >= lo),
  measured_at       TEXT NOT NULL,
  PRIMARY KEY(model_fingerprint, inputs, tensor_name)
);
ALTER TABLE device_benchmarks ADD COLUMN link_h2d_gbs REAL CHECK(link_h2d_gbs IS NULL OR link_h2d_gbs > 0);
ALTER TABLE device_benchmarks ADD COLUMN link_d2h_gbs REAL CHECK(link_d2h_gbs IS NULL OR link_d2h_gbs > 0);
ALTER TABLE device_benchmarks ADD COLUMN link_latency_us REAL CHECK(link_latency_us IS NULL OR link_latency_us > 0);
ALTER TABLE device_benchmarks ADD COLUMN link_h2d_pageable_gbs REAL CHECK(link_h2d_pageable_gbs IS NULL OR link_h2d_pageable_gbs > 0);
ALTER TABLE device_benchmarks ADD COLUMN link_d2h_pageable_gbs REAL CHECK(link_d2h_pageable_gbs IS NULL OR link_d2h_pageable_gbs > 0);
)sql";

// Version 8: sensitivities and activation ranges measured before the executor read a model's
// large weights from its file (graph/model_weights.h) were measured on made-up values for every
// float weight beyond 65,536 elements. They are kept, under their inputs key with the prefix
// "made-up-weights:", which no measurement makes and no search or export takes: `profile
// --variants` measures them again.
constexpr const char* kVersion8 = R"sql(
UPDATE precision_sensitivity SET inputs = 'made-up-weights:' || inputs;
UPDATE activation_ranges SET inputs = 'made-up-weights:' || inputs;
)sql";

// Version 9: a whole model run end to end on one device by `profile`, beside the sum of the
// per-operator medians the same profile measured. A model runs slower than its operators
// measured one by one (here MobileNet-V2 on one core: 15.7 ms against 10.6 ms summed): caches
// hold another node's weights and tensors, the framework runs between nodes. The search
// scales a device's cells of the model by end to end / summed cells (applyModelRunScales).
constexpr const char* kVersion9 = R"sql(
CREATE TABLE model_runs(
  id                 INTEGER PRIMARY KEY,
  model_fingerprint  TEXT NOT NULL REFERENCES models(fingerprint),
  device_fingerprint TEXT NOT NULL REFERENCES devices(fingerprint),
  measured_at        TEXT NOT NULL,
  median_us          REAL NOT NULL CHECK(median_us > 0),
  p10_us             REAL NOT NULL CHECK(p10_us > 0 AND p10_us <= median_us),
  p90_us             REAL NOT NULL CHECK(p90_us >= median_us),
  runs               INTEGER NOT NULL CHECK(runs > 0),
  sum_of_ops_us      REAL NOT NULL CHECK(sum_of_ops_us > 0)
);
CREATE INDEX model_runs_by_pair ON model_runs(model_fingerprint, device_fingerprint);
)sql";

constexpr Migration kMigrations[] = {
    {1, "devices, models, op_signatures, perf_samples, stale_marks, predictors, plans", kVersion1},
    {2, "device_benchmarks", kVersion2},
    {3, "device_contention", kVersion3},
    {4, "tune_rounds", kVersion4},
    {5, "perf_samples.sample_key, profile_jobs", kVersion5},
    {6, "precision_sensitivity", kVersion6},
    {7, "device_benchmarks link figures, activation_ranges", kVersion7},
    {8, "sensitivities and activation ranges on made-up weights set apart", kVersion8},
    {9, "model_runs", kVersion9},
};

/// PostgreSQL's spelling of a migration's column types. Keys and names compare byte by byte
/// ("C" collation) as they do in SQLite, whatever the database's locale; REAL is a double.
std::string postgresSql(std::string_view sql) {
    static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
        {"INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"},
        {"INTEGER", "BIGINT"},
        {"REAL", "DOUBLE PRECISION"},
        {"BLOB", "BYTEA"},
        {"TEXT", "TEXT COLLATE \"C\""},
    };
    const auto isWordChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    std::string out;
    std::size_t i = 0;
    while (i < sql.size()) {
        bool replaced = false;
        if (i == 0 || !isWordChar(sql[i - 1])) {
            for (const auto& [from, to] : kTypes) {
                const std::size_t end = i + from.size();
                if (sql.substr(i, from.size()) == from &&
                    (end == sql.size() || !isWordChar(sql[end]))) {
                    out += to;
                    i = end;
                    replaced = true;
                    break;
                }
            }
        }
        if (!replaced) {
            out += sql[i++];
        }
    }
    return out;
}

std::vector<Migration> withPostgres() {
    static std::vector<std::string> texts; // alive for the program, like the SQLite texts
    std::vector<Migration> result;
    texts.reserve(std::size(kMigrations));
    for (const Migration& m : kMigrations) {
        texts.push_back(postgresSql(m.sql));
    }
    for (std::size_t i = 0; i < std::size(kMigrations); ++i) {
        result.push_back(kMigrations[i]);
        result.back().postgresSql = texts[i].c_str();
    }
    return result;
}

} // namespace

std::span<const Migration> migrations() {
    static const std::vector<Migration> all = withPostgres();
    return all;
}

} // namespace paretune::store
