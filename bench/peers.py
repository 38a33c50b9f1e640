"""Times NumPy and PyTorch (CPU) on the rows `benches/convert.rs` ran, beside its figures.

Reads the CSV the bench writes with TL_BENCH_CSV=path: per row, the source's storage as an array
of `view` dims and the `axes` permutation that gives the destination's storage order. Each peer
does what its users write: NumPy `ascontiguousarray(x.transpose(axes))`; PyTorch
`x.contiguous(memory_format=torch.channels_last)` (or `channels_last_3d`) for NCHW->NHWC and
NCDHW->NDHWC, `x.permute(axes).contiguous()` otherwise. Both results are checked against each
other. GB/s counts bytes read + written, best of the repetitions. Prints one Markdown table.
"""

import csv
import sys
import time

DTYPES = {"f32": "float32", "f16": "float16", "u8": "uint8"}


def best(f, budget=1.0, least=3, most=20):
    """Best wall time of `f()` over at least `least` calls and about `budget` seconds."""
    times = []
    start = time.perf_counter()
    while len(times) < least or (time.perf_counter() - start < budget and len(times) < most):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main(path):
    try:
        import numpy as np
    except ImportError:
        print("SKIPPED: NumPy is not installed (bench/peers.sh PEERS_INSTALL=1 installs it)")
        return
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: its columns stay empty")

    rows = list(csv.DictReader(open(path)))
    print()
    threads = torch.get_num_threads() if torch else "-"
    print(f"## Peers (NumPy {np.__version__}, one thread; PyTorch {torch.__version__ if torch else '-'}, {threads} threads)")
    print()
    print("| row | typed-layout | 1 thread | NumPy | PyTorch | typed-layout 1 thread / NumPy | typed-layout / PyTorch |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        view = [int(v) for v in r["view"].split()]
        axes = tuple(int(a) for a in r["axes"].split())
        nbytes = int(r["bytes"])
        x = (np.arange(np.prod(view), dtype=np.int64) % 251).astype(DTYPES[r["dtype"]]).reshape(view)
        gbps = lambda t: nbytes / t / 1e9 if t else None
        ours, ours1 = (gbps(float(r[k])) if r[k] else None for k in ("typed_layout", "typed_layout_1t"))

        def numpy_peer():
            return np.ascontiguousarray(x.transpose(axes))

        expected = numpy_peer()
        numpy_gbps = gbps(best(numpy_peer))

        torch_gbps = None
        if torch:
            t = torch.from_numpy(x)
            if axes == (0, 2, 3, 1):
                peer = lambda: t.contiguous(memory_format=torch.channels_last)
            elif axes == (0, 2, 3, 4, 1):
                peer = lambda: t.contiguous(memory_format=torch.channels_last_3d)
            else:
                peer = lambda: t.permute(axes).contiguous()
            got = peer()
            # Same logical tensor; compare storage order through the permuted view.
            stored = got if axes not in ((0, 2, 3, 1), (0, 2, 3, 4, 1)) else got.permute(axes)
            assert np.array_equal(stored.contiguous().numpy(), expected), r["row"]
            torch_gbps = gbps(best(peer))

        show = lambda v, unit="": "-" if v is None else f"{v:.2f}{unit}"
        ratio = lambda a, b: None if a is None or b is None else a / b
        print(
            f"| {r['row']} | {show(ours)} | {show(ours1)} | {show(numpy_gbps)} | {show(torch_gbps)} | "
            f"{show(ratio(ours1, numpy_gbps), '×')} | {show(ratio(ours, torch_gbps), '×')} |"
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/convert-bench.csv")
