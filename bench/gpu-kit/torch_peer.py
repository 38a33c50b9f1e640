"""PyTorch's rows beside examples/gpu_bench.rs: the same conversions, data types and sizes.

NCHW->NHWC is `x.contiguous(memory_format=torch.channels_last)`, NCDHW->NDHWC the same with
`channels_last_3d`, NHWC->NCHW `.contiguous()`, BMN row->col `.transpose(-1, -2).contiguous()`,
NCHW->NC/32HW32 a view as (N, C/32, 32, H, W) permuted to (N, C/32, H, W, 32), and the fused
cast a zeroed f16 channels-last buffer of C = 8 whose first 3 channels are `copy_`-ed from the
f32 NCHW input. Times: CUDA events around one call after warm-up, L2 flushed (a buffer larger
than L2 written) before each call, median (best) of RUNS. Run by the GPU kit's run.sh.
"""

import statistics

import torch

BYTES = 256 << 20
WARMUP = 3
RUNS = 15

dev = torch.device("cuda")
props = torch.cuda.get_device_properties(dev)
l2 = getattr(props, "L2_cache_size", 0)
flush = torch.empty(max(BYTES, 4 * l2), dtype=torch.uint8, device=dev)


def timed(f):
    """Median and best seconds of one call of f."""
    for _ in range(WARMUP):
        f()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    seconds = []
    for _ in range(RUNS):
        flush.zero_()
        start.record()
        f()
        end.record()
        end.synchronize()
        seconds.append(start.elapsed_time(end) / 1e3)
    return statistics.median(seconds), min(seconds)


def sample(shape, dtype):
    n = 1
    for d in shape:
        n *= d
    x = torch.arange(n, device=dev, dtype=torch.int64).remainder_(251).sub_(125)
    return x.to(dtype).view(shape)


def row(name, x, f):
    """f(x) timed, its bytes read + written, and the copy of x's bytes (copy_ into a twin)."""
    y = f()
    moved = x.numel() * x.element_size() + y.numel() * y.element_size()
    del y
    ours = timed(f)
    twin = torch.empty_like(x)
    copy = timed(lambda: twin.copy_(x))
    copy_bytes = 2 * x.numel() * x.element_size()
    del twin
    gbps = moved / ours[0] / 1e9
    copy_gbps = copy_bytes / copy[0] / 1e9
    dims = list(x.shape)
    print(
        f"| {name} | {dims} | {gbps:.0f} ({moved / ours[1] / 1e9:.0f}) | {gbps / copy_gbps:.2f} "
        f"| {copy_gbps:.0f} | {ours[0] * 1e3:.3f} |",
        flush=True,
    )


def rows(dtype, label):
    n = BYTES // torch.empty((), dtype=dtype).element_size()
    image = (n // (64 * 128 * 128), 64, 128, 128)
    volume = (n // (64 * 16 * 64 * 64), 64, 16, 64, 64)
    matmul = (n // (4096 * 4096), 4096, 4096)
    narrow = (n // (3 * 256 * 256), 3, 256, 256)
    cl, cl3 = torch.channels_last, torch.channels_last_3d

    x = sample(image, dtype)
    row(f"{label} NCHW→NHWC", x, lambda: x.contiguous(memory_format=cl))
    xl = x.contiguous(memory_format=cl)
    del x
    row(f"{label} NHWC→NCHW", xl, lambda: xl.contiguous())
    del xl
    x = sample(volume, dtype)
    row(f"{label} NCDHW→NDHWC", x, lambda: x.contiguous(memory_format=cl3))
    del x
    x = sample(matmul, dtype)
    row(f"{label} BMN row→col", x, lambda: x.transpose(-1, -2).contiguous())
    del x
    if dtype == torch.int8:
        x = sample(image, dtype)
        b, c, h, w = image
        row(
            f"{label} NCHW→NC/32HW32",
            x,
            lambda: x.view(b, c // 32, 32, h, w).permute(0, 1, 3, 4, 2).contiguous(),
        )
        del x
    x = sample(narrow, dtype)
    row(f"{label} C=3 NCHW→NHWC", x, lambda: x.contiguous(memory_format=cl))
    del x


def fused():
    n = BYTES // 4
    b, c, h, w = n // (3 * 256 * 256), 3, 256, 256
    x = sample((b, c, h, w), torch.float32)

    def cast():
        # torch.zeros takes no memory_format: an empty channels-last tensor, zeroed.
        y = torch.empty((b, 8, h, w), dtype=torch.float16, device=dev, memory_format=torch.channels_last).zero_()
        y[:, :3].copy_(x)
        return y

    row("f32 NCHW C=3 → f16 NHWC C=8 (zeros + copy_)", x, cast)


def main():
    print(
        f"device: {torch.cuda.get_device_name(dev)}, torch {torch.__version__} (CUDA {torch.version.cuda}), "
        f"cuDNN {torch.backends.cudnn.version()}"
    )
    print(
        f"method: 256 MiB per source tensor; CUDA events around one call after {WARMUP} warm-up "
        f"calls, L2 flushed ({flush.numel() >> 20} MiB written) before each; median (best) of "
        f"{RUNS}; GB/s counts bytes read + written; ÷ copy is over torch's copy_ of the source"
    )
    print()
    print("| conversion (PyTorch) | dims | GB/s median (best) | ÷ copy | copy GB/s | ms median |")
    print("|---|---|---:|---:|---:|---:|")
    for dtype, label in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.int8, "i8")):
        rows(dtype, label)
        torch.cuda.empty_cache()
    fused()


if __name__ == "__main__":
    main()
