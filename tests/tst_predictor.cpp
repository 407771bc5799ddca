// SPDX-License-Identifier: GPL-3.0-or-later
// The LibTorch predictor: train → store → load → predict gives identical outputs, it beats the
// roofline on a held-out model, and it flags what it has not seen.
#include "common/input_error.h"
#include "predict/accuracy_metrics.h"
#include "predict/op_features.h"
#include "predict/performance_predictor.h"
#include "predict/training_kernels.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace paretune;

namespace {

DeviceFigures fixtureDevice(const std::string& fingerprint, double cores, double gflops) {
    DeviceFigures d;
    d.fingerprint = fingerprint;
    d.kind = "cpu";
    d.name = "fixture " + fingerprint;
    d.cores = cores;
    d.l1dBytes = 49152;
    d.l2Bytes = 2097152 * cores;
    d.l3Bytes = 1 << 28;
    d.avx2 = true;
    d.fma3 = true;
    d.gemmGflops = gflops;
    d.memoryBwGbs = 5.0;
    return d;
}

/// Synthetic operators whose latency is a launch cost per op type plus 1.5 × the roofline:
/// what a roofline alone cannot get right and a learned model can.
PredictorDataset syntheticDataset(int models, int opsPerModel) {
    PredictorDataset d;
    d.devices["dev1"] = fixtureDevice("dev1", 1, 20.0);
    std::mt19937 random(7);
    std::uniform_real_distribution<double> logSize(8.0, 16.0);
    const char* ops[] = {"Conv", "Relu", "MatMul", "Add"};
    const double launch[] = {20.0, 4.0, 12.0, 3.0};
    for (int m = 0; m < models; ++m) {
        const std::string model = "model" + std::to_string(m);
        d.modelNames[model] = model;
        for (int i = 0; i < opsPerModel; ++i) {
            PredictorRow r;
            r.modelFingerprint = model;
            r.deviceFingerprint = "dev1";
            r.signature = model + "/" + std::to_string(i);
            r.nodeName = r.signature;
            const int type = i % 4;
            r.opType = ops[type];
            r.bytes = std::exp(logSize(random));
            r.flops =
                type == 0 || type == 2 ? r.bytes * std::exp(logSize(random) / 4.0) : r.bytes / 4;
            r.features[0] = static_cast<float>(std::log1p(r.flops));
            r.features[1] = static_cast<float>(std::log1p(r.bytes * 0.6));
            r.features[2] = static_cast<float>(std::log1p(r.bytes * 0.4));
            r.features[4] = static_cast<float>(std::log1p(r.flops / r.bytes));
            r.features[12] = 4.0f;
            r.latencyUs = launch[type] +
                          1.5 * rooflineBaselineUs(d.devices["dev1"], r.opType, r.flops, r.bytes);
            r.peakMemoryMb = r.bytes / (1024.0 * 1024.0);
            d.rows.push_back(r);
        }
    }
    return d;
}

std::vector<std::size_t> allRows(const PredictorDataset& d) {
    std::vector<std::size_t> rows(d.rows.size());
    std::iota(rows.begin(), rows.end(), std::size_t{0});
    return rows;
}

PredictorOptions quickOptions() {
    PredictorOptions o;
    o.epochs = 30;
    o.batchSize = 16;
    o.members = 3;
    return o;
}

} // namespace

class TestPredictor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void handWrittenTrainingStepMatchesAutograd() {
        // Every path of the matrix products: the best the CPU has, AVX2 at most, LibTorch's.
        for (const int vectorBits : {512, 256, 0}) {
            for (std::uint64_t seed = 1; seed <= 3; ++seed) {
                const double mismatch = detail::trainingGradientMismatch(seed, vectorBits);
                qInfo("%d-bit products, seed %d: largest relative difference %.2e", vectorBits,
                      static_cast<int>(seed), mismatch);
                QVERIFY2(mismatch < 1e-4, qPrintable(QString::number(mismatch)));
            }
        }
    }

    void fusedAdamStepIsAdam() {
        // Five steps on 37 parameters (vector bodies and scalar tails) against the update
        // written out in double precision, on every instruction-set path.
        for (const int vectorBits : {512, 256, 0}) {
            std::mt19937 random(5);
            std::normal_distribution<float> normal(0.0f, 1.0f);
            constexpr int kCount = 37;
            std::vector<float> value(kCount), first(kCount, 0.0f), second(kCount, 0.0f);
            std::vector<double> v(kCount), m(kCount, 0.0), s(kCount, 0.0);
            for (int i = 0; i < kCount; ++i) {
                value[i] = normal(random);
                v[i] = value[i];
            }
            for (int step = 1; step <= 5; ++step) {
                std::vector<float> gradient(kCount);
                for (float& g : gradient) {
                    g = normal(random);
                }
                adamStep(value.data(), gradient.data(), first.data(), second.data(), kCount, 1e-2,
                         0.9, 0.999, 1e-8, step, vectorBits);
                for (int i = 0; i < kCount; ++i) {
                    m[i] = 0.9 * m[i] + 0.1 * gradient[i];
                    s[i] = 0.999 * s[i] + 0.001 * gradient[i] * gradient[i];
                    v[i] -= 1e-2 / (1.0 - std::pow(0.9, step)) * m[i] /
                            (std::sqrt(s[i]) / std::sqrt(1.0 - std::pow(0.999, step)) + 1e-8);
                }
            }
            for (int i = 0; i < kCount; ++i) {
                QVERIFY2(std::abs(value[i] - v[i]) < 1e-5,
                         qPrintable(QStringLiteral("%1 bits, parameter %2: %3 vs %4")
                                        .arg(vectorBits)
                                        .arg(i)
                                        .arg(value[i])
                                        .arg(v[i])));
            }
        }
    }

    void roundTripGivesIdenticalPredictions() {
        const PredictorDataset d = syntheticDataset(2, 60);
        const std::vector<std::size_t> all = allRows(d);
        PredictorOptions o = quickOptions();
        o.epochs = 3;
        int epochs = 0;
        const PerformancePredictor trained =
            PerformancePredictor::train(d, all, o, [&](int, double loss) {
                QVERIFY(std::isfinite(loss));
                ++epochs;
            });
        QCOMPARE(epochs, 3);
        const std::vector<LatencyPrediction> before = trained.predict(d.rows, d.devices);

        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "samples.db";
        std::int64_t id = 0;
        {
            SampleLibrary library = SampleLibrary::open(path);
            id = library.addPredictor(trained.toRecord(nlohmann::json{{"note", "round trip"}}));
        }
        const SampleLibrary reopened = SampleLibrary::open(path);
        const auto record = reopened.latestPredictor();
        QVERIFY(record);
        QCOMPARE(record->id, id);
        QVERIFY(!record->weights.empty());
        const PerformancePredictor loaded = PerformancePredictor::fromRecord(*record);
        const std::vector<LatencyPrediction> after = loaded.predict(d.rows, d.devices);
        QCOMPARE(after.size(), before.size());
        for (std::size_t i = 0; i < before.size(); ++i) {
            QCOMPARE(after[i].latencyUs, before[i].latencyUs); // bit-identical
            QCOMPARE(after[i].peakMemoryMb, before[i].peakMemoryMb);
            QCOMPARE(after[i].uncertainty, before[i].uncertainty);
            QCOMPARE(after[i].outOfRange, before[i].outOfRange);
        }
        QCOMPARE(loaded.trainingRows(), trained.trainingRows());
        QCOMPARE(loaded.options().members, 3);
    }

    void calibratesTheReferencePerOperatorKind() {
        // Convolutions on LibTorch's native path run at a third of the roofline, oneDNN ones at
        // twice it: the ratio target's reference is calibrated per kind (median log ratio), and
        // the calibration is stored with the predictor. A stored predictor from before the
        // calibration existed still loads (its reference is the plain roofline).
        PredictorDataset d;
        d.devices["dev1"] = fixtureDevice("dev1", 1, 20.0);
        const std::size_t nativeFeature = 18;
        QCOMPARE(opFeatureNames()[nativeFeature], std::string_view("conv_native_path"));
        for (int i = 0; i < 40; ++i) {
            PredictorRow r;
            r.modelFingerprint = "m" + std::to_string(i % 4);
            r.deviceFingerprint = "dev1";
            r.signature = "s" + std::to_string(i);
            r.nodeName = r.signature;
            r.opType = "Conv";
            r.flops = 1e6 * (1 + i);
            r.bytes = 1e4 * (1 + i);
            r.features[0] = static_cast<float>(std::log1p(r.flops));
            r.features[nativeFeature] = i % 2 == 0 ? 1.0f : 0.0f;
            const double roofline = rooflineBaselineUs(d.devices["dev1"], "Conv", r.flops, r.bytes);
            r.latencyUs = roofline * (i % 2 == 0 ? 3.0 : 0.5);
            d.modelNames[r.modelFingerprint] = r.modelFingerprint;
            d.rows.push_back(r);
        }
        const PerformancePredictor trained =
            PerformancePredictor::train(d, allRows(d), quickOptions());
        const PredictorRecord record = trained.toRecord(nlohmann::json::object());
        nlohmann::json trainSet = nlohmann::json::parse(record.trainSetJson);
        const nlohmann::json& calibration = trainSet.at("calibration");
        QVERIFY(std::abs(calibration.at("dev1/Conv/native").get<double>() - std::log(3.0)) < 1e-9);
        QVERIFY(std::abs(calibration.at("dev1/Conv/onednn").get<double>() - std::log(0.5)) < 1e-9);
        QVERIFY(calibration.contains("dev1/family:conv"));
        QVERIFY(calibration.contains("dev1/*"));

        trainSet.erase("calibration");
        PredictorRecord older = record;
        older.trainSetJson = trainSet.dump();
        const PerformancePredictor loaded = PerformancePredictor::fromRecord(older);
        QCOMPARE(loaded.predict(d.rows, d.devices).size(), d.rows.size());
    }

    void beatsRooflineOnHeldOutModel() {
        const PredictorDataset d = syntheticDataset(3, 160);
        const DatasetSplit split = splitDataset(d, {"model2"}, {});
        QVERIFY(splitLeaks(d, split).empty());
        const PerformancePredictor p = PerformancePredictor::train(d, split.train, quickOptions());
        std::vector<PredictorRow> test;
        std::vector<double> measured, roofline, predicted;
        for (const std::size_t i : split.test) {
            test.push_back(d.rows[i]);
            measured.push_back(d.rows[i].latencyUs);
            roofline.push_back(rooflineBaselineUs(d.devices.at("dev1"), d.rows[i].opType,
                                                  d.rows[i].flops, d.rows[i].bytes));
        }
        for (const LatencyPrediction& v : p.predict(test, d.devices)) {
            predicted.push_back(v.latencyUs);
            QVERIFY(v.uncertainty >= 0.0);
        }
        const std::vector<std::string> groups(test.size(), "model2");
        const AccuracyMetrics ours = accuracyMetrics(predicted, measured, groups);
        const AccuracyMetrics base = accuracyMetrics(roofline, measured, groups);
        qInfo("held out: predictor MAPE %.1f%%, end-to-end %.1f%%; roofline MAPE %.1f%%, "
              "end-to-end %.1f%%",
              ours.mapePercent, ours.endToEndPercent, base.mapePercent, base.endToEndPercent);
        QVERIFY(ours.mapePercent < base.mapePercent / 2);
        QVERIFY(ours.endToEndPercent < base.endToEndPercent / 2);
        QVERIFY(ours.spearman > 0.9);
    }

    void flagsWhatItHasNotSeen() {
        const PredictorDataset d = syntheticDataset(1, 80);
        const std::vector<std::size_t> all = allRows(d);
        PredictorOptions o = quickOptions();
        o.epochs = 2;
        const PerformancePredictor p = PerformancePredictor::train(d, all, o);
        PredictorRow inside = d.rows[1]; // a Relu
        PredictorRow huge = inside;
        huge.features[0] = 60.0f; // far beyond any trained FLOP count
        PredictorRow clip = inside;
        clip.opType = "Clip"; // never trained on: predicted like its family's Relu
        const std::vector<PredictorRow> rows = {inside, huge, clip};
        const auto v = p.predict(rows, d.devices);
        QVERIFY(!v[0].outOfRange);
        QVERIFY(v[1].outOfRange);
        QVERIFY(v[2].outOfRange);
        QVERIFY(std::abs(v[2].latencyUs - v[0].latencyUs) < 1e-4 * v[0].latencyUs);
        QVERIFY(std::abs(v[2].uncertainty - 2.0 * v[0].uncertainty) < 1e-4);
    }

    void coldStartAndFewShotOnANewDevice() {
        PredictorDataset d = syntheticDataset(1, 80);
        const std::vector<std::size_t> all = allRows(d);
        PerformancePredictor p = PerformancePredictor::train(d, all, quickOptions());
        const DeviceFigures wide = fixtureDevice("dev2", 2, 40.0);
        QVERIFY(!p.knowsDevice("dev2"));
        QCOMPARE(p.nearestDevice(wide), std::string("dev1"));
        // dev2's GEMM figure is twice dev1's, so the roofline halves every cold prediction; the
        // device is only 1.25 times as fast: what fine-tuning has to learn.
        std::vector<PredictorRow> shots(d.rows.begin(), d.rows.begin() + 10);
        for (PredictorRow& r : shots) {
            r.deviceFingerprint = "dev2";
            r.latencyUs *= 0.8;
        }
        d.devices["dev2"] = wide;
        const auto cold = p.predict(shots, d.devices);
        p.fineTune(shots, wide, 100);
        QVERIFY(p.knowsDevice("dev2"));
        const auto tuned = p.predict(shots, d.devices);
        // Fine-tuning sets the device's level to the median measured / predicted ratio of the
        // shots: the cold start's level is off, the tuned one is not. (The sum of the errors is
        // no measure of it: the cold start is low on the compute-bound operators, whose roofline
        // dev2's GEMM figure halves, and high on the memory-bound ones, whose roofline it keeps;
        // a level moves some of them closer as much as it moves the others away, and whether
        // the embedding's few steps win that back depends on the network's initial weights.)
        const auto medianLogRatio = [&](const std::vector<LatencyPrediction>& predicted) {
            std::vector<double> ratios;
            for (std::size_t i = 0; i < shots.size(); ++i) {
                ratios.push_back(std::log(shots[i].latencyUs / predicted[i].latencyUs));
            }
            std::sort(ratios.begin(), ratios.end());
            const std::size_t mid = ratios.size() / 2;
            return ratios.size() % 2 == 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2.0;
        };
        QVERIFY(std::abs(medianLogRatio(tuned)) < 1e-6);
        QVERIFY(std::abs(medianLogRatio(tuned)) < std::abs(medianLogRatio(cold)));
        // the adapted predictor stores and loads like any other
        const PerformancePredictor loaded =
            PerformancePredictor::fromRecord(p.toRecord(nlohmann::json::object()));
        QVERIFY(loaded.knowsDevice("dev2"));
        QCOMPARE(loaded.predict(shots, d.devices)[3].latencyUs, tuned[3].latencyUs);
    }

    void rejectsDamagedRecords() {
        PredictorRecord r;
        r.trainSetJson = "{}";
        QVERIFY_THROWS_EXCEPTION(std::exception, PerformancePredictor::fromRecord(r));
        r.trainSetJson = "not json";
        QVERIFY_THROWS_EXCEPTION(std::exception, PerformancePredictor::fromRecord(r));
        const PredictorDataset d = syntheticDataset(1, 8);
        QVERIFY_THROWS_EXCEPTION(std::exception,
                                 PerformancePredictor::train(d, {}, quickOptions()));
    }

    void refusesAnotherFeatureSet() {
        // A predictor stored by a version with other features (one fewer, as before
        // conv_native_path) is refused by name, not read with shifted statistics.
        const PredictorDataset d = syntheticDataset(2, 40);
        const PerformancePredictor p = PerformancePredictor::train(d, allRows(d), quickOptions());
        PredictorRecord r = p.toRecord(nlohmann::json::object());
        QVERIFY(PerformancePredictor::fromRecord(r).knowsDevice("dev1"));
        nlohmann::json j = nlohmann::json::parse(r.trainSetJson);
        j["feature_names"].erase(static_cast<std::size_t>(kOpFeatureCount - 1));
        r.trainSetJson = j.dump();
        try {
            PerformancePredictor::fromRecord(r);
            QFAIL("a predictor with another feature set was loaded");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("another feature set") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPredictor)
#include "tst_predictor.moc"
