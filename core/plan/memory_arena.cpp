// SPDX-License-Identifier: GPL-3.0-or-later
// The pure part of the memory plan: greedy-by-size offsets in one arena, the check that no two
// live blocks overlap, and the max-live lower bound.
#include "plan/memory_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace paretune {

namespace {

std::int64_t alignUp(std::int64_t value, std::int64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

bool livesIntersect(const ArenaBlock& a, const ArenaBlock& b) {
    return a.first <= b.last && b.first <= a.last;
}

} // namespace

ArenaLayout planArena(std::span<const ArenaBlock> blocks, std::int64_t alignment) {
    alignment = std::max<std::int64_t>(alignment, 1);
    ArenaLayout layout;
    layout.offsets.assign(blocks.size(), 0);
    std::vector<std::size_t> order(blocks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (blocks[a].bytes != blocks[b].bytes) {
            return blocks[a].bytes > blocks[b].bytes;
        }
        return blocks[a].first < blocks[b].first;
    });
    std::vector<std::size_t> placed;                          // in placement order
    std::vector<std::pair<std::int64_t, std::int64_t>> taken; // [offset, end) of live ones
    for (const std::size_t i : order) {
        const ArenaBlock& block = blocks[i];
        if (block.bytes <= 0) {
            continue; // takes no space: offset 0
        }
        taken.clear();
        for (const std::size_t j : placed) {
            if (livesIntersect(block, blocks[j])) {
                taken.emplace_back(layout.offsets[j], layout.offsets[j] + blocks[j].bytes);
            }
        }
        std::sort(taken.begin(), taken.end());
        std::int64_t offset = 0;
        for (const auto& [begin, end] : taken) {
            if (begin >= offset + block.bytes) {
                break; // the gap below this one holds it
            }
            offset = std::max(offset, alignUp(end, alignment));
        }
        layout.offsets[i] = offset;
        layout.arenaBytes = std::max(layout.arenaBytes, offset + block.bytes);
        placed.push_back(i);
    }
    return layout;
}

std::optional<std::pair<std::size_t, std::size_t>>
arenaConflict(std::span<const ArenaBlock> blocks, std::span<const std::int64_t> offsets,
              std::span<const std::int32_t> sharing) {
    auto shares = [&](std::size_t a, std::size_t b) {
        auto with = [&](std::size_t x, std::size_t y) {
            return x < sharing.size() && sharing[x] >= 0 &&
                   static_cast<std::size_t>(sharing[x]) == y && offsets[x] == offsets[y] &&
                   blocks[x].bytes == blocks[y].bytes;
        };
        return with(a, b) || with(b, a);
    };
    // Sweep by offset: only blocks whose byte ranges overlap need their lifetimes compared.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < blocks.size() && i < offsets.size(); ++i) {
        if (blocks[i].bytes > 0) {
            order.push_back(i);
        }
    }
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
    std::optional<std::pair<std::size_t, std::size_t>> found;
    for (std::size_t x = 0; x < order.size(); ++x) {
        const std::size_t a = order[x];
        const std::int64_t end = offsets[a] + blocks[a].bytes;
        for (std::size_t y = x + 1; y < order.size() && offsets[order[y]] < end; ++y) {
            const std::size_t b = order[y];
            if (livesIntersect(blocks[a], blocks[b]) && !shares(a, b)) {
                const std::pair<std::size_t, std::size_t> pair{std::min(a, b), std::max(a, b)};
                if (!found || pair < *found) {
                    found = pair;
                }
            }
        }
    }
    return found;
}

std::int64_t mostLiveBytes(std::span<const ArenaBlock> blocks) {
    std::map<std::int32_t, std::int64_t> diff;
    for (const ArenaBlock& b : blocks) {
        if (b.bytes > 0 && b.first <= b.last) {
            diff[b.first] += b.bytes;
            diff[b.last + 1] -= b.bytes;
        }
    }
    std::int64_t live = 0;
    std::int64_t most = 0;
    for (const auto& [step, change] : diff) {
        live += change;
        most = std::max(most, live);
    }
    return most;
}

const char* arenaTensorKindName(ArenaTensorKind kind) {
    switch (kind) {
    case ArenaTensorKind::Activation:
        return "activation";
    case ArenaTensorKind::Copy:
        return "copy";
    case ArenaTensorKind::GraphInput:
        return "graph_input";
    case ArenaTensorKind::Workspace:
        return "workspace";
    }
    return "activation";
}

std::int64_t MemoryPlan::plannedPeakBytes() const {
    std::int64_t most = 0;
    for (const DeviceMemoryPlan& d : devices) {
        most = std::max(most, d.plannedBytes());
    }
    return most;
}

} // namespace paretune
