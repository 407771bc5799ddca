// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: the keys samples refer to, devices, models and operator signatures.
#include "sample_library.h"

#include "graph_records.h"
#include "library_connection.h"
#include "value_checks.h"

#include <algorithm>

namespace paretune {

using store::jsonText;
using store::kFingerprintLength;
using store::kSignatureLength;
using store::orNow;
using store::Query;
using store::requireFinite;
using store::requireKey;
using store::WriteTransaction;

void SampleLibrary::upsertDevice(const DeviceRecord& device) {
    requireKey(device.fingerprint, kFingerprintLength, "device fingerprint");
    const std::string spec = jsonText(device.specJson, "device spec_json");
    const std::string software = jsonText(device.softwareJson, "device software_json");
    Query q(*m_impl,
            m_impl->statement(
                "INSERT INTO devices(fingerprint, kind, name, spec_json, software_json, "
                "created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(fingerprint) DO UPDATE "
                "SET kind = excluded.kind, name = excluded.name, spec_json = excluded.spec_json, "
                "software_json = excluded.software_json"),
            "store a device");
    q.bind(1, device.fingerprint)
        .bind(2, device.kind)
        .bind(3, device.name)
        .bind(4, spec)
        .bind(5, software)
        .bind(6, orNow(device.createdAt));
    if (!q.run()) {
        m_impl->failConstraint("store a device");
    }
}

void SampleLibrary::upsertModel(const ModelRecord& model) {
    requireKey(model.fingerprint, kFingerprintLength, "model fingerprint");
    Query q(*m_impl,
            m_impl->statement(
                "INSERT INTO models(fingerprint, name, source_path, node_count, imported_at) "
                "VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(fingerprint) DO UPDATE SET name = "
                "excluded.name, source_path = excluded.source_path, node_count = "
                "excluded.node_count, imported_at = excluded.imported_at"),
            "store a model");
    q.bind(1, model.fingerprint)
        .bind(2, model.name)
        .bind(3, model.sourcePath)
        .bind(4, model.nodeCount)
        .bind(5, orNow(model.importedAt));
    if (!q.run()) {
        m_impl->failConstraint("store a model");
    }
}

void SampleLibrary::upsertSignature(const SignatureRecord& signature) {
    requireKey(signature.signature, kSignatureLength, "operator signature");
    requireFinite(signature.flops, true, "signature " + signature.signature + ": flops");
    const std::string attrs = jsonText(signature.attrsJson, "signature attrs_json");
    const std::string shapes = jsonText(signature.shapesJson, "signature shapes_json");
    Query q(*m_impl,
            m_impl->statement("INSERT INTO op_signatures(signature, op_type, attrs_json, "
                              "shapes_json, flops, bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
                              "ON CONFLICT(signature) DO NOTHING"),
            "store an operator signature");
    q.bind(1, signature.signature)
        .bind(2, signature.opType)
        .bind(3, attrs)
        .bind(4, shapes)
        .bind(5, signature.flops)
        .bind(6, signature.bytes);
    if (!q.run()) {
        m_impl->failConstraint("store an operator signature");
    }
}

namespace {

/// The signatures in key order: two writers storing overlapping sets then wait for each other
/// on the first shared one instead of deadlocking (PostgreSQL).
std::vector<const SignatureRecord*> inKeyOrder(std::span<const SignatureRecord> signatures) {
    std::vector<const SignatureRecord*> ordered;
    ordered.reserve(signatures.size());
    for (const SignatureRecord& s : signatures) {
        ordered.push_back(&s);
    }
    std::sort(ordered.begin(), ordered.end(),
              [](const auto* a, const auto* b) { return a->signature < b->signature; });
    return ordered;
}

} // namespace

void SampleLibrary::upsertSignatures(std::span<const SignatureRecord> signatures) {
    WriteTransaction transaction(*m_impl);
    for (const SignatureRecord* s : inKeyOrder(signatures)) {
        upsertSignature(*s);
    }
    transaction.commit();
}

void SampleLibrary::upsertGraph(const Graph& graph) {
    const ModelRecord model = modelRecordOf(graph);
    const std::vector<SignatureRecord> signatures = signatureRecordsOf(graph);
    WriteTransaction transaction(*m_impl);
    upsertModel(model);
    for (const SignatureRecord* s : inKeyOrder(signatures)) {
        upsertSignature(*s);
    }
    transaction.commit();
}

namespace {

DeviceRecord deviceFromRow(const Query& q) {
    return {q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5)};
}

ModelRecord modelFromRow(const Query& q) {
    return {q.text(0), q.text(1), q.text(2), q.integer(3), q.text(4)};
}

constexpr const char* kDeviceColumns =
    "SELECT fingerprint, kind, name, spec_json, software_json, created_at FROM devices ";
constexpr const char* kModelColumns =
    "SELECT fingerprint, name, source_path, node_count, imported_at FROM models ";

} // namespace

std::optional<DeviceRecord> SampleLibrary::device(std::string_view fingerprint) const {
    Query q(*m_impl, m_impl->statement(std::string(kDeviceColumns) + "WHERE fingerprint = ?1"),
            "read a device");
    q.bind(1, fingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return deviceFromRow(q);
}

std::vector<DeviceRecord> SampleLibrary::devices() const {
    Query q(*m_impl, m_impl->statement(std::string(kDeviceColumns) + "ORDER BY created_at, name"),
            "read devices");
    std::vector<DeviceRecord> result;
    while (q.step()) {
        result.push_back(deviceFromRow(q));
    }
    return result;
}

std::optional<ModelRecord> SampleLibrary::model(std::string_view fingerprint) const {
    Query q(*m_impl, m_impl->statement(std::string(kModelColumns) + "WHERE fingerprint = ?1"),
            "read a model");
    q.bind(1, fingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return modelFromRow(q);
}

std::vector<ModelRecord> SampleLibrary::models() const {
    Query q(*m_impl, m_impl->statement(std::string(kModelColumns) + "ORDER BY imported_at, name"),
            "read models");
    std::vector<ModelRecord> result;
    while (q.step()) {
        result.push_back(modelFromRow(q));
    }
    return result;
}

std::optional<SignatureRecord> SampleLibrary::signature(std::string_view signature) const {
    Query q(*m_impl,
            m_impl->statement("SELECT signature, op_type, attrs_json, shapes_json, flops, bytes "
                              "FROM op_signatures WHERE signature = ?1"),
            "read an operator signature");
    q.bind(1, signature);
    if (!q.step()) {
        return std::nullopt;
    }
    return SignatureRecord{q.text(0), q.text(1), q.text(2), q.text(3), q.real(4), q.integer(5)};
}

} // namespace paretune
