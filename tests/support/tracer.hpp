// A model of the GPU memory system for typed-layout's generated kernels (tests only).
//
// Every load and store of a generated kernel goes through TL_LD / TL_ST; here they record the
// access (its call site, address and size) instead of touching global memory, which is never
// allocated: the kernels get fake, 256-byte aligned buffer addresses, so a 256 MiB launch costs
// nothing but its sampled blocks. Shared memory is real (a static per kernel, 128-byte aligned).
//
// Each sampled block runs as the emulator runs it (real threads when the kernel synchronizes).
// Then its threads are cut into warps of 32 consecutive threads, and the accesses of a warp are
// replayed in lockstep: the k-th execution of a call site by each lane is one warp instruction
// (the lanes that skip it are inactive). Per instruction:
//   global: the 32-byte sectors it touches, and the distinct bytes it uses (sector efficiency =
//           used / (32 × sectors), as Nsight Compute counts it);
//   shared: wavefronts = per phase (1 for accesses up to 4 bytes, 2 half-warps for 8, 4
//           quarter-warps for 16), the most distinct 4-byte words any bank serves; the ideal is
//           the distinct bytes over 128. Their ratio is the bank-conflict degree (1: none).
#include <algorithm>
#include <cstring>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

struct tl_access {
    uint64_t addr;
    uint32_t site;
    uint16_t bytes;
    bool store;
    bool shared;
};
static thread_local std::vector<tl_access>* tl_trace = nullptr;
// Global buffers live at fake addresses in [tl_global_lo, tl_global_hi).
static uint64_t tl_global_lo = 0, tl_global_hi = 0;

template <class T> static inline T tl_ld(const void* p, uint32_t site) {
    const uint64_t a = (uint64_t)p;
    const bool shared = a < tl_global_lo || a >= tl_global_hi;
    tl_trace->push_back(tl_access{a, site, (uint16_t)sizeof(T), false, shared});
    T v{};
    if (shared) memcpy(&v, p, sizeof v);
    return v;
}
template <class T> static inline void tl_st(void* p, T v, uint32_t site) {
    const uint64_t a = (uint64_t)p;
    const bool shared = a < tl_global_lo || a >= tl_global_hi;
    tl_trace->push_back(tl_access{a, site, (uint16_t)sizeof(T), true, shared});
    if (shared) memcpy(p, &v, sizeof v);
}
#define TL_LD(T, p) tl_ld<T>((const void*)(p), __COUNTER__)
#define TL_ST(T, p, v) tl_st<T>((void*)(p), (T)(v), __COUNTER__)

#include "emulator.hpp"

// What one launch's sampled warps did.
struct tl_counts {
    uint64_t ld_requests = 0, ld_sectors = 0, ld_bytes = 0, ld_lanes = 0;
    uint64_t st_requests = 0, st_sectors = 0, st_bytes = 0, st_lanes = 0;
    uint64_t sh_requests = 0, sh_wavefronts = 0, sh_ideal = 0, sh_worst = 0;
};

// The distinct bytes of a set of accesses.
static uint64_t tl_distinct_bytes(std::vector<std::pair<uint64_t, uint64_t>> spans) {
    std::sort(spans.begin(), spans.end());
    uint64_t total = 0, end = 0;
    for (auto [lo, hi] : spans) {
        if (hi <= end) continue;
        total += hi - std::max(lo, end);
        end = hi;
    }
    return total;
}

// One warp instruction: the accesses of its active lanes (lane, access).
static void tl_count(tl_counts& c, const std::vector<std::pair<unsigned, tl_access>>& lanes) {
    const tl_access& first = lanes[0].second;
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (auto& [lane, a] : lanes) spans.push_back({a.addr, a.addr + a.bytes});
    const uint64_t used = tl_distinct_bytes(spans);
    if (!first.shared) {
        std::vector<uint64_t> sectors;
        for (auto& [lane, a] : lanes)
            for (uint64_t s = a.addr / 32; s <= (a.addr + a.bytes - 1) / 32; ++s) sectors.push_back(s);
        std::sort(sectors.begin(), sectors.end());
        const uint64_t n = std::unique(sectors.begin(), sectors.end()) - sectors.begin();
        (first.store ? c.st_requests : c.ld_requests) += 1;
        (first.store ? c.st_sectors : c.ld_sectors) += n;
        (first.store ? c.st_bytes : c.ld_bytes) += used;
        (first.store ? c.st_lanes : c.ld_lanes) += lanes.size();
        return;
    }
    const unsigned per_phase = first.bytes <= 4 ? 32 : first.bytes == 8 ? 16 : 8;
    uint64_t wavefronts = 0;
    for (unsigned phase = 0; phase < 32 / per_phase; ++phase) {
        std::map<unsigned, std::vector<uint64_t>> banks;
        for (auto& [lane, a] : lanes) {
            if (lane / per_phase != phase) continue;
            for (uint64_t w = a.addr / 4; w <= (a.addr + a.bytes - 1) / 4; ++w) banks[w % 32].push_back(w);
        }
        uint64_t worst = 0;
        for (auto& [bank, words] : banks) {
            std::sort(words.begin(), words.end());
            worst = std::max<uint64_t>(worst, std::unique(words.begin(), words.end()) - words.begin());
        }
        wavefronts += worst;
    }
    const uint64_t ideal = std::max<uint64_t>(1, (used + 127) / 128);
    c.sh_requests += 1;
    c.sh_wavefronts += wavefronts;
    c.sh_ideal += ideal;
    c.sh_worst = std::max(c.sh_worst, (wavefronts + ideal - 1) / ideal);
}

// Replays each warp of one block in lockstep.
static void tl_warps(tl_counts& c, std::vector<std::vector<tl_access>>& traces) {
    for (size_t w0 = 0; w0 < traces.size(); w0 += 32) {
        // (site, k-th execution) -> the lanes' accesses, in first-seen order.
        std::map<std::pair<uint32_t, uint64_t>, std::vector<std::pair<unsigned, tl_access>>> by_instruction;
        for (size_t t = w0; t < std::min(w0 + 32, traces.size()); ++t) {
            std::map<uint32_t, uint64_t> seen;
            for (const tl_access& a : traces[t]) by_instruction[{a.site, seen[a.site]++}].push_back({(unsigned)(t - w0), a});
        }
        for (auto& [key, lanes] : by_instruction) tl_count(c, lanes);
    }
}

static void tl_trace_launch(tl_entry k, bool sync, unsigned grid, tl_dim3 block, const std::vector<uint64_t>& blocks,
                            const void* s, void* d, const unsigned char* p, tl_counts& c) {
    gridDim = tl_dim3{grid, 1, 1};
    blockDim = block;
    const unsigned n = block.x * block.y * block.z;
    std::vector<std::vector<tl_access>> traces(n);
    for (uint64_t b : blocks) {
        blockIdx = tl_dim3{(unsigned)b, 0, 0};
        for (auto& t : traces) t.clear();
        if (!sync) {
            for (unsigned t = 0; t < n; ++t) {
                threadIdx = tl_thread(t);
                tl_trace = &traces[t];
                k(s, d, p);
            }
        } else {
            std::barrier<> inner(n);
            tl_block_barrier = &inner;
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < n; ++t) {
                pool.emplace_back([&, t] {
                    threadIdx = tl_thread(t);
                    tl_trace = &traces[t];
                    k(s, d, p);
                });
            }
            for (auto& t : pool) t.join();
        }
        tl_warps(c, traces);
    }
}

// Job file: count, then per job: kernel, grid, block x y z, params (length, bytes), source
// bytes, destination bytes, sampled blocks (count, indices). Writes one line of counts a job.
static int tl_trace_main(int argc, char** argv, const tl_entry* kernels, const bool* sync) {
    if (argc != 3) { fprintf(stderr, "usage: tracer JOBS OUT\n"); return 2; }
    FILE* in = fopen(argv[1], "rb");
    FILE* out = fopen(argv[2], "w");
    if (!in || !out) { fprintf(stderr, "cannot open files\n"); return 2; }
    const uint64_t jobs = tl_read_u64(in);
    for (uint64_t j = 0; j < jobs; ++j) {
        const uint64_t kernel = tl_read_u64(in), grid = tl_read_u64(in);
        tl_dim3 block{(unsigned)tl_read_u64(in), (unsigned)tl_read_u64(in), (unsigned)tl_read_u64(in)};
        std::vector<unsigned char> params = tl_read_bytes(in, tl_read_u64(in));
        const uint64_t src_bytes = tl_read_u64(in), dst_bytes = tl_read_u64(in);
        std::vector<uint64_t> blocks(tl_read_u64(in));
        for (auto& b : blocks) b = tl_read_u64(in);
        // Source at 2^44, destination after it on the next 2^40 boundary past its end.
        const uint64_t src = 1ull << 44, dst = src + ((src_bytes >> 40) + 1) * (1ull << 40);
        tl_global_lo = src;
        tl_global_hi = dst + dst_bytes + 4096;
        tl_counts c;
        tl_trace_launch(kernels[kernel], sync[kernel], (unsigned)grid, block, blocks, (const void*)src, (void*)dst,
                        params.data(), c);
        fprintf(out, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
                (unsigned long long)c.ld_requests, (unsigned long long)c.ld_sectors, (unsigned long long)c.ld_bytes,
                (unsigned long long)c.ld_lanes, (unsigned long long)c.st_requests, (unsigned long long)c.st_sectors,
                (unsigned long long)c.st_bytes, (unsigned long long)c.st_lanes, (unsigned long long)c.sh_requests,
                (unsigned long long)c.sh_wavefronts, (unsigned long long)c.sh_ideal, (unsigned long long)c.sh_worst);
    }
    fclose(out);
    return 0;
}
