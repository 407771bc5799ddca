// SPDX-License-Identifier: GPL-3.0-or-later
#include "contention_profile.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "store/graph_records.h"
#include "store/sample_library.h"

#include <utility>

namespace paretune {

ContentionRecord contentionRecordOf(const CoRunSlowdown& slowdown, std::string deviceFingerprint,
                                    std::string besideFingerprint) {
    ContentionRecord record;
    record.deviceFingerprint = std::move(deviceFingerprint);
    record.besideFingerprint = std::move(besideFingerprint);
    record.factor = slowdown.factor();
    record.gemmBesideGemm = slowdown.gemmBesideGemm;
    record.gemmBesideTriad = slowdown.gemmBesideTriad;
    record.triadBesideGemm = slowdown.triadBesideGemm;
    record.triadBesideTriad = slowdown.triadBesideTriad;
    return record;
}

std::vector<ContentionMeasurement> measureMissingContention(SampleLibrary& library,
                                                            const Device& device,
                                                            const std::vector<Device>& devices,
                                                            const CoRunBenchmarkOptions& options,
                                                            Progress* progress) {
    std::vector<ContentionMeasurement> measured;
    const std::string fingerprint = deviceFingerprint(device);
    const std::vector<const Device*> partners = coRunPartners(device, devices);
    for (std::size_t i = 0; i < partners.size(); ++i) {
        const Device& other = *partners[i];
        const std::string otherFingerprint = deviceFingerprint(other);
        if (library.contention(fingerprint, otherFingerprint) &&
            library.contention(otherFingerprint, fingerprint)) {
            continue;
        }
        if (progress != nullptr) {
            if (progress->cancelled()) {
                break;
            }
            progress->report(static_cast<double>(i) / static_cast<double>(partners.size()),
                             "measuring the contention of " + device.id + " beside " + other.id);
        }
        ContentionMeasurement m;
        m.deviceId = device.id;
        m.besideId = other.id;
        CoRunBenchmark run;
        try {
            run = runCoRunBenchmark(device, other, options);
        } catch (const InputError&) {
            throw;
        } catch (const std::runtime_error& e) {
            m.notMeasured = e.what();
            measured.push_back(std::move(m));
            continue;
        }
        m.seconds = run.seconds;
        m.deviceSlowed = contentionRecordOf(run.first, fingerprint, otherFingerprint);
        m.besideSlowed = contentionRecordOf(run.second, otherFingerprint, fingerprint);
        library.upsertDevice(deviceRecordOf(device));
        library.upsertDevice(deviceRecordOf(other));
        m.deviceSlowed.measuredAt = m.besideSlowed.measuredAt = currentTimestamp();
        m.deviceSlowed.id = library.addContention(m.deviceSlowed);
        m.besideSlowed.id = library.addContention(m.besideSlowed);
        measured.push_back(std::move(m));
    }
    return measured;
}

} // namespace paretune
