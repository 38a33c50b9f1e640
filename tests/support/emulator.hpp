// A host emulator for typed-layout's generated CUDA kernels (tests only).
//
// Blocks run one after another; the threads of a block run as real threads when the kernel
// calls __syncthreads (so __shared__, which becomes a function-level static, is shared by the
// block, exactly as on the device), and one after another on the calling thread otherwise.
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h> // the device math the kernels call (rintf)
#include <thread>
#include <vector>

struct tl_dim3 { unsigned x, y, z; };
static tl_dim3 gridDim, blockDim, blockIdx;
static thread_local tl_dim3 threadIdx;
static std::barrier<>* tl_block_barrier = nullptr;
static inline void __syncthreads() { tl_block_barrier->arrive_and_wait(); }
struct alignas(16) uint4 { unsigned x, y, z, w; };

#define __global__
#define __device__
#define __forceinline__ inline
static inline long long __double_as_longlong(double d) { long long r; memcpy(&r, &d, sizeof r); return r; }
static inline double __longlong_as_double(long long v) { double r; memcpy(&r, &v, sizeof r); return r; }
#define __shared__ static __attribute__((aligned(128)))
#define __restrict__ __restrict
#define __launch_bounds__(n)

typedef void (*tl_entry)(const void* src, void* dst, const unsigned char* params);

static tl_dim3 tl_thread(unsigned t) {
    return tl_dim3{t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)};
}

static void tl_launch(tl_entry k, bool sync, unsigned grid, tl_dim3 block, const void* s, void* d, const unsigned char* p) {
    gridDim = tl_dim3{grid, 1, 1};
    blockDim = block;
    const unsigned n = block.x * block.y * block.z;
    if (!sync) {
        for (unsigned b = 0; b < grid; ++b) {
            blockIdx = tl_dim3{b, 0, 0};
            for (unsigned t = 0; t < n; ++t) {
                threadIdx = tl_thread(t);
                k(s, d, p);
            }
        }
        return;
    }
    std::barrier<> start(n + 1), end(n + 1), inner(n);
    tl_block_barrier = &inner;
    bool done = false;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) {
        pool.emplace_back([&, t] {
            threadIdx = tl_thread(t);
            for (;;) {
                start.arrive_and_wait();
                if (done) return;
                k(s, d, p);
                end.arrive_and_wait();
            }
        });
    }
    for (unsigned b = 0; b < grid; ++b) {
        blockIdx = tl_dim3{b, 0, 0};
        start.arrive_and_wait();
        end.arrive_and_wait();
    }
    done = true;
    start.arrive_and_wait();
    for (auto& t : pool) t.join();
}

static uint64_t tl_read_u64(FILE* f) {
    uint64_t v = 0;
    if (fread(&v, 8, 1, f) != 1) { fprintf(stderr, "short job file\n"); exit(2); }
    return v;
}

static std::vector<unsigned char> tl_read_bytes(FILE* f, uint64_t n) {
    std::vector<unsigned char> v(n);
    if (n && fread(v.data(), 1, n, f) != n) { fprintf(stderr, "short job file\n"); exit(2); }
    return v;
}

// Job file: count, then per job: kernel, chain (1: the source is the previous job's output),
// grid, block x y z, params (length, bytes), source (length, bytes), destination length.
// Every destination starts as 0xA5 bytes (poison); the outputs are written back to back.
static int tl_main(int argc, char** argv, const tl_entry* kernels, const bool* sync) {
    if (argc != 3) { fprintf(stderr, "usage: runner JOBS OUT\n"); return 2; }
    FILE* in = fopen(argv[1], "rb");
    FILE* out = fopen(argv[2], "wb");
    if (!in || !out) { fprintf(stderr, "cannot open files\n"); return 2; }
    uint64_t jobs = tl_read_u64(in);
    std::vector<unsigned char> prev;
    for (uint64_t j = 0; j < jobs; ++j) {
        uint64_t kernel = tl_read_u64(in), chain = tl_read_u64(in), grid = tl_read_u64(in);
        tl_dim3 block{(unsigned)tl_read_u64(in), (unsigned)tl_read_u64(in), (unsigned)tl_read_u64(in)};
        std::vector<unsigned char> params = tl_read_bytes(in, tl_read_u64(in));
        std::vector<unsigned char> src = tl_read_bytes(in, tl_read_u64(in));
        if (chain) src = prev;
        std::vector<unsigned char> dst(tl_read_u64(in), 0xA5);
        // Keep 16-byte alignment for vector accesses, as device allocations are.
        // Two guard vectors of poison after the destination catch writes past its end.
        std::vector<uint4> s16((src.size() + 15) / 16 + 1), d16((dst.size() + 15) / 16 + 2);
        memcpy(s16.data(), src.data(), src.size());
        memset(d16.data(), 0xA5, d16.size() * 16);
        tl_launch(kernels[kernel], sync[kernel], (unsigned)grid, block, s16.data(), d16.data(), params.data());
        memcpy(dst.data(), d16.data(), dst.size());
        const unsigned char* guard = (const unsigned char*)d16.data();
        for (size_t i = dst.size(); i < d16.size() * 16; ++i) {
            if (guard[i] != 0xA5) { fprintf(stderr, "job %llu wrote past the destination\n", (unsigned long long)j); return 3; }
        }
        fwrite(dst.data(), 1, dst.size(), out);
        prev = dst;
    }
    fclose(out);
    return 0;
}
