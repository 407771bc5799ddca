// SPDX-License-Identifier: GPL-3.0-or-later
// Pareto search: exact hypervolume, NSGA-II against the exhaustive front on small graphs,
// baselines on real models, determinism and cancellation.
#include "common/input_error.h"
#include "common/progress.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "graph_fixture.h"
#include "plan/simulator.h"
#include "search/baselines.h"
#include "search/exhaustive_search.h"
#include "search/hypervolume.h"
#include "search/pareto_search.h"
#include "search/random.h"
#include "testpaths.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace paretune;

namespace {

const std::string kExampleCatalog = PARETUNE_SOURCE_DIR "/resources/catalogs/example.json";

/// Union volume by coordinate compression (O(n^(d+1))): the reference the fast algorithms are
/// checked against.
double bruteForceHypervolume(const std::vector<double>& points, const std::vector<double>& ref) {
    const std::size_t dims = ref.size();
    const std::size_t n = points.size() / dims;
    std::vector<std::vector<double>> axes(dims);
    for (std::size_t k = 0; k < dims; ++k) {
        axes[k].push_back(ref[k]);
        for (std::size_t i = 0; i < n; ++i) {
            axes[k].push_back(std::min(points[i * dims + k], ref[k]));
        }
        std::sort(axes[k].begin(), axes[k].end());
        axes[k].erase(std::unique(axes[k].begin(), axes[k].end()), axes[k].end());
    }
    double volume = 0.0;
    std::vector<std::size_t> cell(dims, 0);
    while (true) {
        bool valid = true;
        double size = 1.0;
        for (std::size_t k = 0; k < dims; ++k) {
            if (cell[k] + 1 >= axes[k].size()) {
                valid = false;
                break;
            }
            size *= axes[k][cell[k] + 1] - axes[k][cell[k]];
        }
        if (valid) {
            for (std::size_t i = 0; i < n; ++i) {
                bool covers = true;
                for (std::size_t k = 0; k < dims && covers; ++k) {
                    covers = points[i * dims + k] <= axes[k][cell[k]];
                }
                if (covers) {
                    volume += size;
                    break;
                }
            }
        }
        std::size_t k = 0;
        while (k < dims && ++cell[k] + 1 >= axes[k].size()) {
            cell[k] = 0;
            ++k;
        }
        if (k == dims) {
            break;
        }
    }
    return volume;
}

/// A small graph with seeded random FLOPs and tensor sizes, so the three devices of the
/// example catalog trade latency, energy and memory against each other.
Graph randomisedFixture(const std::string& text, std::uint64_t seed) {
    test::FixtureOptions options;
    Random random(seed);
    const Graph shape = test::fixtureGraph(text);
    options.inputBytes = 200000 + random.below(2000000);
    for (const Node& n : shape.nodes) {
        options.outputBytes[n.name] = 1000 + random.below(4000000);
        options.flops[n.name] = 1e6 + random.uniform() * 4e9;
        options.opTypes[n.name] = random.chance(0.5) ? "Conv" : "Relu";
        if (random.chance(0.4)) {
            options.weightBytes[n.name] = random.below(50000000);
        }
    }
    return test::fixtureGraph(text, options);
}

/// A mid-size generated graph: `blocks` residual blocks, each a main chain of four nodes and a
/// side chain of two joined by a node ("x -> m1 -> m2 -> m3 -> m4; x -> s1 -> s2; m4, s2 -> x'").
std::string blockGraphText(int blocks) {
    std::string text;
    std::string x = "stem";
    for (int b = 0; b < blocks; ++b) {
        const std::string p = "b" + std::to_string(b) + "_";
        text += x + "->" + p + "m1->" + p + "m2->" + p + "m3->" + p + "m4; ";
        text += x + "->" + p + "s1->" + p + "s2; ";
        text += p + "m4," + p + "s2->" + p + "join; ";
        x = p + "join";
    }
    return text;
}

std::vector<double> referenceOf(const std::vector<Solution>& front,
                                const std::vector<Objective>& objectives) {
    std::vector<double> ref(objectives.size(), 0.0);
    for (const Solution& s : front) {
        for (std::size_t k = 0; k < objectives.size(); ++k) {
            ref[k] = std::max(ref[k], objectiveValue(s.objectives, objectives[k]) * 1.1);
        }
    }
    return ref;
}

struct CancelAfter : Progress {
    explicit CancelAfter(int n) : limit(n) {}
    void report(double fraction, const std::string& message) override {
        ++reports;
        lastFraction = fraction;
        lastMessage = message;
    }
    bool cancelled() const override { return reports >= limit; }
    int limit;
    int reports = 0;
    double lastFraction = 0.0;
    std::string lastMessage;
};

} // namespace

class TestSearch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hypervolumeKnownValues();
    void hypervolumeMatchesBruteForce_data();
    void hypervolumeMatchesBruteForce();
    void objectivesParse();
    void spreadSubsetKeepsExtremesAndBaselines();
    void reachesExhaustiveFront_data();
    void reachesExhaustiveFront();
    void deterministicBySeed();
    void cancelStopsEarly();
    void baselinesAreSensible();
    void graphWithoutComputeNodes();
    void realModelsFrontCoversBaselines_data();
    void realModelsFrontCoversBaselines();
    void coarseToFineKeepsTheContract();
    void coarseToFineVersusFlat_data();
    void coarseToFineVersusFlat();
};

void TestSearch::hypervolumeKnownValues() {
    // Two boxes [1,4]x[3,4] and [2,4]x[1,4]: 3 + 6 - 2.
    QCOMPARE(hypervolume(std::vector<double>{1, 3, 2, 1}, std::vector<double>{4, 4}), 7.0);
    // A point outside the reference adds nothing; a dominated one neither.
    QCOMPARE(hypervolume(std::vector<double>{1, 3, 2, 1, 5, 0, 3, 3}, std::vector<double>{4, 4}),
             7.0);
    QCOMPARE(hypervolume(std::vector<double>{0, 0, 0}, std::vector<double>{2, 3, 4}), 24.0);
    // Boxes [0,3]x[2,3]x[0,2] (6) and [2,3]x[0,3]x[1,2] (3) overlap in [2,3]x[2,3]x[1,2] (1).
    QCOMPARE(hypervolume(std::vector<double>{0, 2, 0, 2, 0, 1}, std::vector<double>{3, 3, 2}), 8.0);
    // A point dominated by another adds nothing.
    QCOMPARE(hypervolume(std::vector<double>{0, 0, 0, 1, 1, 0}, std::vector<double>{3, 3, 2}),
             18.0);
    QCOMPARE(hypervolume(std::vector<double>{}, std::vector<double>{1, 1}), 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hypervolume(std::vector<double>{1, 2, 3, 4},
                                                                std::vector<double>{1, 1, 1, 1}));
}

void TestSearch::hypervolumeMatchesBruteForce_data() {
    QTest::addColumn<int>("dims");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("seed");
    for (int dims : {2, 3}) {
        for (int seed = 1; seed <= 6; ++seed) {
            const int count = seed * 6;
            QTest::addRow("%dD, %d points, seed %d", dims, count, seed) << dims << count << seed;
        }
    }
}

void TestSearch::hypervolumeMatchesBruteForce() {
    QFETCH(int, dims);
    QFETCH(int, count);
    QFETCH(int, seed);
    Random random(static_cast<std::uint64_t>(seed));
    std::vector<double> points;
    for (int i = 0; i < count * dims; ++i) {
        // Integer grid values make ties (equal coordinates) common.
        points.push_back(static_cast<double>(random.below(12)));
    }
    const std::vector<double> ref(static_cast<std::size_t>(dims), 11.0);
    const double fast = hypervolume(points, ref);
    const double slow = bruteForceHypervolume(points, ref);
    QCOMPARE(fast, slow);
}

void TestSearch::objectivesParse() {
    QCOMPARE(
        parseObjectives("latency,energy,memory"),
        (std::vector<Objective>{Objective::Latency, Objective::Energy, Objective::PeakMemory}));
    QCOMPARE(parseObjectives("power,latency"),
             (std::vector<Objective>{Objective::AveragePower, Objective::Latency}));
    QVERIFY_THROWS_EXCEPTION(InputError, parseObjectives("latency"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseObjectives("latency,latency"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseObjectives("latency,speed"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseObjectives("latency,energy,memory,power"));
}

void TestSearch::spreadSubsetKeepsExtremesAndBaselines() {
    // A 2D front of 100 plans on the line latency + energy = 100.
    std::vector<Solution> front;
    for (int i = 0; i < 100; ++i) {
        Solution s;
        s.objectives.latencyUs = i;
        s.objectives.energyMj = 100 - i;
        s.baseline = i == 37 ? "heft" : "";
        front.push_back(s);
    }
    const std::vector<Objective> objectives{Objective::Latency, Objective::Energy};
    const std::vector<Solution> subset = spreadSubset(front, objectives, 11);
    QCOMPARE(subset.size(), std::size_t(11));
    QCOMPARE(subset.front().objectives.latencyUs, 0.0);
    QCOMPARE(subset.back().objectives.latencyUs, 99.0);
    QVERIFY(std::any_of(subset.begin(), subset.end(),
                        [](const Solution& s) { return s.baseline == "heft"; }));
    // Spread: no gap between chosen neighbours wider than twice the even spacing.
    for (std::size_t i = 1; i < subset.size(); ++i) {
        QVERIFY(subset[i].objectives.latencyUs - subset[i - 1].objectives.latencyUs <= 20.0);
    }
    QCOMPARE(spreadSubset(front, objectives, 500).size(), std::size_t(100));
}

void TestSearch::reachesExhaustiveFront_data() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<QString>("objectives");
    QTest::addColumn<int>("seed");
    const char* graphs[][2] = {
        {"chain of 12", "a->b->c->d->e->f->g->h->i->j->k->l"},
        {"diamonds", "a->b; a->c; b,c->d; d->e; d->f; e,f->g; g->h; g->i; h,i->j; j->k; k->l"},
        {"fan out, fan in", "s->a,b,c,d,e; a,b,c,d,e->t; t->u,v; u,v->w"},
        {"two branches", "a->b->c->d->e; a->f->g->h->i; e,i->j"},
    };
    const char* objectiveSets[] = {"latency,energy", "latency,energy,memory", "latency,power",
                                   "energy,memory"};
    int seed = 11;
    for (int round = 0; round < 2; ++round) {
        for (const auto& g : graphs) {
            for (const char* o : objectiveSets) {
                QTest::addRow("%s; %s; seed %d", g[0], o, seed)
                    << QString::fromLatin1(g[1]) << QString::fromLatin1(o) << seed;
                ++seed;
            }
        }
    }
}

void TestSearch::reachesExhaustiveFront() {
    QFETCH(QString, graph);
    QFETCH(QString, objectives);
    QFETCH(int, seed);
    const Graph g = randomisedFixture(graph.toStdString(), static_cast<std::uint64_t>(seed));
    QVERIFY(g.computeNodeCount() <= 12);
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(g, table);
    SearchOptions options;
    options.objectives = parseObjectives(objectives.toStdString());
    options.population = 100;
    options.generations = 150;
    options.seed = static_cast<std::uint64_t>(seed);
    const SearchResult result = searchPareto(sim, options);
    const std::vector<Solution> exact = exhaustiveFront(sim, options.objectives);
    QVERIFY(!exact.empty());
    const std::vector<double> ref = referenceOf(exact, options.objectives);
    const double hvExact = normalisedHypervolume(exact, options.objectives, ref);
    const double hvSearch = normalisedHypervolume(result.front, options.objectives, ref);
    QVERIFY(hvExact > 0.0);
    // No searched plan may beat the exact front.
    for (const Solution& s : result.front) {
        for (const Solution& e : exact) {
            QVERIFY(!constrainedDominates(s.objectives, e.objectives, options.objectives));
        }
    }
    const double ratio = hvSearch / hvExact;
    qInfo("exact front %zu plans, search front %zu, hypervolume ratio %.6f", exact.size(),
          result.front.size(), ratio);
    QVERIFY2(ratio >= 0.99, qPrintable(QString::number(ratio, 'f', 6)));
    QVERIFY(ratio <= 1.0 + 1e-9);
    // The archive's hypervolume never decreases while it is below its capacity.
    QCOMPARE(result.hypervolumeByGeneration.size(), std::size_t(151));
    for (std::size_t gen = 1; gen < result.hypervolumeByGeneration.size(); ++gen) {
        QVERIFY(result.hypervolumeByGeneration[gen] >= result.hypervolumeByGeneration[gen - 1]);
    }
}

void TestSearch::deterministicBySeed() {
    const Graph g = randomisedFixture("a->b; a->c; b,c->d; d->e->f; f->g,h; g,h->i", 5);
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    SearchOptions options;
    options.population = 40;
    options.generations = 30;
    options.seed = 42;
    Simulator simA(g, table);
    Simulator simB(g, table);
    const SearchResult a = searchPareto(simA, options);
    const SearchResult b = searchPareto(simB, options);
    QCOMPARE(a.front.size(), b.front.size());
    for (std::size_t i = 0; i < a.front.size(); ++i) {
        QCOMPARE(a.front[i].genome, b.front[i].genome);
        QCOMPARE(a.front[i].objectives.latencyUs, b.front[i].objectives.latencyUs);
    }
    QCOMPARE(a.hypervolumeByGeneration, b.hypervolumeByGeneration);
}

void TestSearch::cancelStopsEarly() {
    const Graph g = randomisedFixture("a->b->c->d->e->f", 3);
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(g, table);
    SearchOptions options;
    options.population = 20;
    options.generations = 100;
    CancelAfter progress(5);
    const SearchResult result = searchPareto(sim, options, &progress);
    QVERIFY(result.cancelled);
    QCOMPARE(result.generationsRun, 5);
    QCOMPARE(progress.reports, 5);
    QCOMPARE(progress.lastFraction, 0.05);
    QVERIFY(progress.lastMessage.find("generation 5/100") != std::string::npos);
    QVERIFY(!result.front.empty());
    options.population = 2;
    QVERIFY_THROWS_EXCEPTION(InputError, searchPareto(sim, options));
}

void TestSearch::baselinesAreSensible() {
    test::FixtureOptions options;
    options.opTypes["s"] = "Softmax"; // unsupported on the npu
    options.flops = {{"a", 1e9}, {"b", 1e9}, {"s", 1e6}, {"c", 1e9}};
    const Graph g = test::fixtureGraph("a->b->s->c", options);
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(g, table);
    const std::int32_t cpu = table.findDevice("cpu");
    const std::int32_t gpu = table.findDevice("gpu");
    const std::int32_t npu = table.findDevice("npu");
    const auto onNpu = allOnDevice(sim, npu);
    QCOMPARE(onNpu[static_cast<std::size_t>(sim.computeIndex(g.findNode("s")))], std::uint8_t(cpu));
    QCOMPARE(onNpu[static_cast<std::size_t>(sim.computeIndex(g.findNode("a")))], std::uint8_t(npu));
    const auto greedy = greedyFastest(sim);
    QCOMPARE(greedy[static_cast<std::size_t>(sim.computeIndex(g.findNode("a")))],
             std::uint8_t(gpu));
    const auto order = upwardRankOrder(sim);
    sim.setPriority(order); // throws when not topological
    const std::vector<Solution> baselines = evaluateBaselines(sim);
    QCOMPARE(baselines.size(), std::size_t(5));
    std::set<std::string> labels;
    for (const Solution& b : baselines) {
        labels.insert(b.baseline);
        QVERIFY(b.objectives.feasible());
    }
    QCOMPARE(labels, (std::set<std::string>{"all:cpu", "all:gpu", "all:npu", "heft", "greedy"}));
    // HEFT on a chain of big nodes puts them all on the fastest device.
    const auto heft = heftPlacement(sim);
    QCOMPARE(heft[static_cast<std::size_t>(sim.computeIndex(g.findNode("b")))], std::uint8_t(gpu));
}

void TestSearch::graphWithoutComputeNodes() {
    test::FixtureOptions options;
    options.kinds = {{"r", NodeKind::PassThrough}};
    const Graph g = test::fixtureGraph("r", options);
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu"});
    Simulator sim(g, table);
    QCOMPARE(sim.computeCount(), 0);
    const Objectives o = sim.evaluate({});
    QCOMPARE(o.latencyUs, 0.0);
    QVERIFY(o.feasible());
    SearchOptions search;
    search.population = 8;
    search.generations = 5;
    const SearchResult result = searchPareto(sim, search);
    QCOMPARE(result.front.size(), std::size_t(1));
    QCOMPARE(exhaustiveFront(sim, search.objectives).size(), std::size_t(1));
}

void TestSearch::realModelsFrontCoversBaselines_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("resnet50") << "resnet50.onnx";
    QTest::newRow("bert_base") << "bert_base.onnx";
}

void TestSearch::realModelsFrontCoversBaselines() {
    QFETCH(QString, model);
    const std::filesystem::path path =
        std::filesystem::path(PARETUNE_TEST_MODELS_DIR) / model.toStdString();
    if (!std::filesystem::exists(path)) {
        QSKIP(qPrintable(QStringLiteral("model not exported: ") +
                         QString::fromStdString(path.string())));
    }
    const ImportResult imported = importOnnxFile(path.string());
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(imported.graph, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(imported.graph, table);
    SearchOptions options; // 200 × 300, latency / energy / memory
    const SearchResult result = searchPareto(sim, options);
    QCOMPARE(result.baselines.size(), std::size_t(5));
    QVERIFY(!result.front.empty());
    for (const Solution& b : result.baselines) {
        if (!b.objectives.feasible()) {
            continue;
        }
        const bool covered =
            std::any_of(result.front.begin(), result.front.end(), [&](const Solution& s) {
                return weaklyDominates(s.objectives, b.objectives, options.objectives);
            });
        QVERIFY2(covered, b.baseline.c_str());
    }
    // The search improves on its initial population.
    QVERIFY(result.hypervolumeByGeneration.back() > result.hypervolumeByGeneration.front());
    for (const Solution& s : result.front) {
        QVERIFY(s.objectives.feasible());
        const Objectives again = sim.evaluate(s.genome);
        QCOMPARE(again.latencyUs, s.objectives.latencyUs);
    }
    qInfo("%s: front %zu plans, hypervolume %.4f -> %.4f", qPrintable(model), result.front.size(),
          result.hypervolumeByGeneration.front(), result.hypervolumeByGeneration.back());
}

void TestSearch::coarseToFineKeepsTheContract() {
    const Graph g = randomisedFixture(blockGraphText(6), 21);
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(g, table);
    SearchOptions options;
    options.population = 30;
    options.generations = 20;
    options.coarseToFine = true;
    const SearchResult a = searchPareto(sim, options);
    QCOMPARE(a.generationsRun, 20);
    QCOMPARE(a.hypervolumeByGeneration.size(), std::size_t(21));
    QCOMPARE(a.baselines.size(), std::size_t(5));
    QVERIFY(!a.front.empty());
    for (const Solution& s : a.front) {
        QCOMPARE(s.genome.size(), static_cast<std::size_t>(sim.computeCount()));
        QVERIFY(s.objectives.feasible());
        const Objectives again = sim.evaluate(s.genome);
        QCOMPARE(again.latencyUs, s.objectives.latencyUs);
        QCOMPARE(again.energyMj, s.objectives.energyMj);
    }
    for (const Solution& b : a.baselines) {
        if (b.objectives.feasible()) {
            QVERIFY2(std::any_of(a.front.begin(), a.front.end(),
                                 [&](const Solution& s) {
                                     return weaklyDominates(s.objectives, b.objectives,
                                                            options.objectives);
                                 }),
                     b.baseline.c_str());
        }
    }
    // Deterministic, and cancellable in either stage.
    const SearchResult again = searchPareto(sim, options);
    QCOMPARE(again.hypervolumeByGeneration, a.hypervolumeByGeneration);
    for (const int stop : {3, 10}) {
        CancelAfter cancel(stop);
        const SearchResult cut = searchPareto(sim, options, &cancel);
        QVERIFY(cut.cancelled);
        QCOMPARE(cut.generationsRun, stop);
        QVERIFY(cancel.lastMessage.rfind(stop <= 4 ? "coarse" : "fine", 0) == 0);
    }
    options.coarseGenerationShare = 1.0;
    QVERIFY_THROWS_EXCEPTION(InputError, searchPareto(sim, options));
}

void TestSearch::coarseToFineVersusFlat_data() {
    QTest::addColumn<QString>("model"); // an ONNX file in the test models, or "" (generated)
    QTest::addColumn<int>("population");
    QTest::addColumn<int>("generations");
    QTest::newRow("generated, 16 blocks") << QString() << 60 << 80;
    QTest::newRow("resnet50") << "resnet50.onnx" << 200 << 300;
    QTest::newRow("bert_base") << "bert_base.onnx" << 200 << 300;
}

// Same population and generations, hence the same evaluation budget (counted below), and the
// flat search's reference point for both fronts. Measured (seeds 1 and 2, example catalog):
// coarse-to-fine is within ±0.5% of the flat search on ResNet-50, Swin-T and the generated
// graph (above or below depending on the seed) and 0.1-0.3% above it on the BERT encoder; the
// flat search's block initialisation, chain mutation and segment crossover already move
// chains of nodes together. So this checks "no worse than 1% below", not "better".
void TestSearch::coarseToFineVersusFlat() {
    QFETCH(QString, model);
    QFETCH(int, population);
    QFETCH(int, generations);
    Graph g;
    if (model.isEmpty()) {
        g = randomisedFixture(blockGraphText(16), 33);
    } else {
        const std::filesystem::path path =
            std::filesystem::path(PARETUNE_TEST_MODELS_DIR) / model.toStdString();
        if (!std::filesystem::exists(path)) {
            QSKIP(qPrintable(QStringLiteral("model not exported: ") +
                             QString::fromStdString(path.string())));
        }
        g = importOnnxFile(path.string()).graph;
    }
    const DeviceCatalog catalog = loadDeviceCatalog(kExampleCatalog);
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(g, table);
    SearchOptions options;
    options.population = population;
    options.generations = generations;
    const SearchResult flat = searchPareto(sim, options);
    options.coarseToFine = true;
    const SearchResult staged = searchPareto(sim, options);
    const double flatHv = normalisedHypervolume(flat.front, options.objectives, flat.reference);
    const double stagedHv = normalisedHypervolume(staged.front, options.objectives, flat.reference);
    qInfo("%s: %d compute nodes; flat %lld evaluations, hypervolume %.4f; coarse-to-fine %lld "
          "evaluations, hypervolume %.4f",
          model.isEmpty() ? "generated" : qPrintable(model), sim.computeCount(),
          static_cast<long long>(flat.evaluations), flatHv,
          static_cast<long long>(staged.evaluations), stagedHv);
    // Children identical to a parent are not simulated, so the counts differ slightly.
    QVERIFY(staged.evaluations <= flat.evaluations + flat.evaluations / 50);
    QVERIFY(stagedHv >= 0.99 * flatHv);
}

QTEST_APPLESS_MAIN(TestSearch)
#include "tst_search.moc"
