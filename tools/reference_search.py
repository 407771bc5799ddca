#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python reference of Paretune's placement problem: the seed's approach.

A plain-Python list-scheduling simulator of a placement (devices run one node at a time in a
priority order, inputs copied hop by hop over serial link queues, energy from busy and idle
power, peak memory from weights plus live activations) and DEAP's NSGA-II over the
device-per-node genome. bench/bench_search writes the problem (cost table, edges, paths) as
JSON, runs this script on it and evaluates the returned front with the C++ simulator, so that
both fronts are compared on the same model and the same hypervolume reference.

Usage: reference_search.py PROBLEM.json OUT.json
Output: {"simulator_us_per_evaluation", "simulator_us_per_node", "search_seconds",
         "search_cpu_seconds", "evaluations", "front": [[device index per compute node], ...]}
Simulator figures are CPU time of this process (robust against other load); the search gives
both wall and CPU time.
Needs Debian's python3-deap (scripts/install-deps installs it).
"""
import json
import random
import sys
import time

from deap import base, creator, tools

PENALTY = 1e12


def load(path):
    with open(path) as f:
        p = json.load(f)
    C = len(p["nodes"])
    D = len(p["devices"])
    paths = {}
    for key, hops in p["paths"].items():
        s, d = (int(x) for x in key.split(","))
        paths[(s, d)] = [(int(q), float(lat), float(bw)) for q, lat, bw in hops]
    nodes = p["nodes"]
    return p, C, D, paths, nodes


class Simulator:
    def __init__(self, problem, C, D, paths, nodes):
        self.C, self.D = C, D
        self.host = problem["host"]
        self.paths = paths
        self.queues = problem["queues"]
        self.priority = problem["priority"]
        self.lat = [n["latency_us"] for n in nodes]
        self.energy = [n["energy_uj"] for n in nodes]
        self.supported = [n["supported"] for n in nodes]
        self.preds = [n["preds"] for n in nodes]
        self.out_bytes = [n["out_bytes"] for n in nodes]
        self.weight = [n["weight_bytes"] for n in nodes]
        self.is_output = [n["is_output"] for n in nodes]
        self.input_bytes = [n["graph_input_bytes"] for n in nodes]
        self.active_w = [d["active_w"] for d in problem["devices"]]
        self.idle_w = [d["idle_w"] for d in problem["devices"]]
        self.memory = [d["memory_bytes"] for d in problem["devices"]]

    def evaluate(self, a):
        C, D = self.C, self.D
        dev_free = [0.0] * D
        busy = [0.0] * D
        energy_uj = [0.0] * D
        queue_free = [0.0] * self.queues
        start = [0.0] * C
        finish = [0.0] * C
        arrival = {}  # (producer, device) -> (copy begin, copy end)
        last_use = {}  # (producer, device) -> finish of the last consumer there
        violation = 0
        for ci in self.priority:
            d = a[ci]
            if not self.supported[ci][d]:
                violation += 1
            ready = 0.0
            if self.input_bytes[ci] and d != self.host:
                key = (-1 - ci, d)  # graph inputs start on the host
                t = 0.0
                begin = None
                for q, lat, bw in self.paths[(self.host, d)]:
                    b = max(t, queue_free[q])
                    begin = b if begin is None else begin
                    t = b + lat + self.input_bytes[ci] / bw
                    queue_free[q] = t
                arrival[key] = (begin, t)
                ready = t
            for p in self.preds[ci]:
                pd = a[p]
                if pd == d:
                    t = finish[p]
                else:
                    key = (p, d)
                    if key not in arrival:
                        t = finish[p]
                        begin = None
                        for q, lat, bw in self.paths[(pd, d)]:
                            b = max(t, queue_free[q])
                            begin = b if begin is None else begin
                            t = b + lat + self.out_bytes[p] / bw
                            queue_free[q] = t
                        arrival[key] = (begin, t)
                    t = arrival[key][1]
                if t > ready:
                    ready = t
            s = max(ready, dev_free[d])
            f = s + self.lat[ci][d]
            start[ci], finish[ci] = s, f
            dev_free[d] = f
            busy[d] += f - s
            energy_uj[d] += self.energy[ci][d]
            for p in self.preds[ci]:
                key = (p, d)
                if last_use.get(key, -1.0) < f:
                    last_use[key] = f
        makespan = max(finish) if C else 0.0
        # Peak memory per device: weights placed there plus activations alive there (from the
        # producer's start or the copy's begin until the last consumer there finishes; graph
        # outputs until the end), swept over start/end events.
        weights = [0.0] * D
        events = [[] for _ in range(D)]
        for ci in range(C):
            d = a[ci]
            weights[d] += self.weight[ci]
            end = makespan if self.is_output[ci] else last_use.get((ci, d), finish[ci])
            events[d].append((start[ci], self.out_bytes[ci]))
            events[d].append((max(end, finish[ci]), -self.out_bytes[ci]))
        for (p, d), (begin, end) in arrival.items():
            if p < 0:
                events[self.host].append((0.0, self.input_bytes[-1 - p]))
                events[self.host].append((end, -self.input_bytes[-1 - p]))
                events[d].append((begin, self.input_bytes[-1 - p]))
                events[d].append((finish[-1 - p], -self.input_bytes[-1 - p]))
                continue
            events[d].append((begin, self.out_bytes[p]))
            events[d].append((max(last_use.get((p, d), end), end), -self.out_bytes[p]))
        peak = 0.0
        for d in range(D):
            live = 0.0
            best = 0.0
            for _, delta in sorted(events[d], key=lambda e: (e[0], e[1])):
                live += delta
                best = max(best, live)
            total = weights[d] + best
            if total > self.memory[d] > 0:
                violation += total / self.memory[d] - 1.0
            peak = max(peak, total)
        energy_mj = 0.0
        for d in range(D):
            if busy[d] > 0 or d == self.host:
                energy_mj += (energy_uj[d] + (makespan - busy[d]) * self.idle_w[d]) / 1000.0
        return makespan, energy_mj, peak, violation


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    problem, C, D, paths, nodes = load(sys.argv[1])
    sim = Simulator(problem, C, D, paths, nodes)
    supported = [[d for d in range(D) if n["supported"][d]] for n in nodes]
    rng = random.Random(problem.get("seed", 1))
    random.seed(problem.get("seed", 1))

    # The simulator alone on random feasible plans.
    plans = [[rng.choice(supported[c]) for c in range(C)] for _ in range(32)]
    t0 = time.process_time()
    for a in plans:
        sim.evaluate(a)
    sim_us = (time.process_time() - t0) * 1e6 / len(plans)

    creator.create("Fitness", base.Fitness, weights=(-1.0, -1.0, -1.0))
    creator.create("Individual", list, fitness=creator.Fitness)
    toolbox = base.Toolbox()

    def random_individual():
        return creator.Individual(rng.choice(supported[c]) for c in range(C))

    def evaluate(ind):
        lat, energy, peak, violation = sim.evaluate(ind)
        extra = violation * PENALTY  # DEAP has no constrained domination: a penalty instead
        return lat + extra, energy + extra, peak + extra

    def mutate(ind):
        for c in range(C):
            if rng.random() < 1.0 / C:
                ind[c] = rng.choice(supported[c])
        return (ind,)

    toolbox.register("individual", random_individual)
    toolbox.register("population", tools.initRepeat, list, toolbox.individual)
    toolbox.register("evaluate", evaluate)
    toolbox.register("mate", tools.cxTwoPoint)  # keeps neighbouring nodes together
    toolbox.register("mutate", mutate)
    toolbox.register("select", tools.selNSGA2)

    population_size = problem["population"]
    generations = problem["generations"]
    t0 = time.perf_counter()
    c0 = time.process_time()
    pop = toolbox.population(n=population_size)
    evaluations = 0
    for ind in pop:
        ind.fitness.values = toolbox.evaluate(ind)
        evaluations += 1
    pop = toolbox.select(pop, len(pop))  # assigns crowding distances
    for _ in range(generations):
        parents = tools.selTournamentDCD(pop, len(pop))
        offspring = [toolbox.clone(ind) for ind in parents]
        for a, b in zip(offspring[::2], offspring[1::2]):
            if rng.random() < 0.9:
                toolbox.mate(a, b)
            toolbox.mutate(a)
            toolbox.mutate(b)
            del a.fitness.values, b.fitness.values
        for ind in offspring:
            if not ind.fitness.valid:
                ind.fitness.values = toolbox.evaluate(ind)
                evaluations += 1
        pop = toolbox.select(pop + offspring, population_size)
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - c0
    front = tools.sortNondominated(pop, len(pop), first_front_only=True)[0]
    with open(sys.argv[2], "w") as f:
        json.dump({"simulator_us_per_evaluation": sim_us,
                   "simulator_us_per_node": sim_us / max(C, 1),
                   "search_seconds": seconds,
                   "search_cpu_seconds": cpu_seconds,
                   "evaluations": evaluations,
                   "front": [list(ind) for ind in front]}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
