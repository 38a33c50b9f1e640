"""Times NumPy, PyTorch and ONNX Runtime (CPU) on the rows `benches/convert.rs` ran, beside its
figures.

Reads the CSV the bench writes with TL_BENCH_CSV=path: per row, the source's storage as an array
of `view` dims and the `axes` permutation that gives the destination's storage order. Each peer
does what its users write: NumPy `ascontiguousarray(x.transpose(axes))`; PyTorch
`x.contiguous(memory_format=torch.channels_last)` (or `channels_last_3d`) for NCHW->NHWC and
NCDHW->NDHWC, `x.permute(axes).contiguous()` otherwise; ONNX Runtime a one-node `Transpose`
model on all threads (the fastest peer found). ONNX Runtime's CPU arena (on by default) keeps
the memory of a run's output and hands it out again: the array a run returns does not own its
data (`owndata` is false; it lives while the array does), and once the array is dropped, the next
run writes into the same pages, already mapped. So its default form is compared with
typed-layout into a buffer ("ORT"), and a session without the arena, whose output is fresh memory
each run as `to_layout`'s is, with `to_layout` ("ORT fresh"). The next to last column is twice
ONNX Runtime's throughput over the strongest copy of the same bytes, both back to back (the
bench times its copies so after each row's race): above 1, being twice as fast as ONNX Runtime
means beating the copy. The last is the row's limit probe (its access pattern without the
transposes, the strongest of its probes, back to back on all threads as the bench times it) over
ONNX Runtime: under 2×, no pass in that pattern is twice as fast as ONNX Runtime ("-": the row
has no probe on this CPU). Every result is checked against NumPy's. GB/s counts bytes read +
written, best of the repetitions. The peers are timed back to back (each call finds the caches as
the call before left them); so are the "hot" column, typed-layout into a buffer on all threads,
and "to_layout hot", which the ONNX Runtime ratios use (the other typed-layout columns come from
the bench's interleaved races). Given the bench's executable (the second argument, as
`bench/peers.sh` passes it), those two are timed beside ONNX Runtime: per row, ONNX Runtime
(both forms) and the bench's `TL_BENCH_HOT` run of the same row alternate
`ALTERNATIONS` times and each keeps its best, so that both are timed in the same minutes of a
machine whose speed drifts (taken minutes apart, a row's ratio moved by half between runs);
without it they are the bench's own back-to-back times. Prints one Markdown table; a peer that
is not installed leaves its columns empty.
"""

import csv
import os
import subprocess
import sys
import time

DTYPES = {"f32": "float32", "f16": "float16", "u8": "uint8"}

# How many times ONNX Runtime and the bench's back-to-back run of a row take turns.
ALTERNATIONS = 3


def bench_hot(binary, row):
    """The bench's back-to-back times of `row` (seconds: typed-layout into a buffer, `to_layout`)."""
    env = dict(os.environ, TL_BENCH_HOT=row)
    out = subprocess.run([binary, "--bench"], env=env, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("hot ") and line[4:].rsplit(" ", 2)[0] == row:
            into, fresh = line.rsplit(" ", 2)[1:]
            return float(into), float(fresh)
    raise RuntimeError(f"the bench printed no hot times for {row}: {out!r}")


def best(f, budget=1.0, least=3):
    """Best wall time of `f()` over at least `least` calls and `budget` seconds (a few calls
    of a small row land in one second of a machine whose speed swings from second to second)."""
    times = []
    start = time.perf_counter()
    while len(times) < least or time.perf_counter() - start < budget:
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main(path, binary=None):
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

    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        ort = None
        print("ONNX Runtime is not installed (pip install onnx onnxruntime): its columns stay empty")

    rows = list(csv.DictReader(open(path)))
    print()
    threads = torch.get_num_threads() if torch else "-"
    print(
        f"## Peers (NumPy {np.__version__}, one thread; PyTorch {torch.__version__ if torch else '-'}, "
        f"{threads} threads; ONNX Runtime {ort.__version__ if ort else '-'}, all threads)"
    )
    print()
    if binary and ort:
        print(
            f"ONNX Runtime and typed-layout's hot columns (hot, to_layout hot) take turns {ALTERNATIONS} times "
            "a row, each keeping its best."
        )
        print()
    print(
        "| row | typed-layout | 1 thread | hot | to_layout hot | NumPy | PyTorch | ORT | ORT fresh | "
        "typed-layout 1 thread / NumPy | typed-layout / PyTorch | typed-layout hot / ORT | "
        "to_layout hot / ORT fresh | to_layout hot / ORT | 2 × ORT ÷ copy hot | probe hot / ORT |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    owns = set()
    for r in rows:
        view = [int(v) for v in r["view"].split()]
        axes = tuple(int(a) for a in r["axes"].split())
        nbytes = int(r["bytes"])
        x = (np.arange(np.prod(view), dtype=np.int64) % 251).astype(DTYPES[r["dtype"]]).reshape(view)
        gbps = lambda t: nbytes / t / 1e9 if t else None
        ours, ours1 = (gbps(float(r[k])) if r[k] else None for k in ("typed_layout", "typed_layout_1t"))
        hot, fresh, copy_hot, probe = (
            gbps(float(r[k])) if r.get(k) else None
            for k in ("typed_layout_hot", "to_layout_hot", "memcpy_hot", "probe_hot")
        )

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

        ort_gbps = ort_fresh_gbps = None
        if ort:
            types = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "u8": TensorProto.UINT8}
            node = helper.make_node("Transpose", ["x"], ["y"], perm=list(axes))
            graph = helper.make_graph(
                [node],
                "transpose",
                [helper.make_tensor_value_info("x", types[r["dtype"]], view)],
                [helper.make_tensor_value_info("y", types[r["dtype"]], [view[a] for a in axes])],
            )
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
            runs = []
            for arena in (True, False):
                options = ort.SessionOptions()
                options.enable_cpu_mem_arena = arena
                session = ort.InferenceSession(
                    model.SerializeToString(), options, providers=["CPUExecutionProvider"]
                )
                run = lambda session=session: session.run(None, {"x": x})[0]
                got = run()
                assert np.array_equal(got, expected), r["row"]
                owns.add((arena, bool(got.flags.owndata)))
                del got
                runs.append(run)
            times = [float("inf")] * 4
            for _ in range(ALTERNATIONS if binary else 1):
                times[0] = min(times[0], best(runs[0]))
                times[1] = min(times[1], best(runs[1]))
                if binary:
                    into, fresh_t = bench_hot(binary, r["row"])
                    times[2], times[3] = min(times[2], into), min(times[3], fresh_t)
            ort_gbps, ort_fresh_gbps = gbps(times[0]), gbps(times[1])
            if binary:
                hot, fresh = gbps(times[2]), gbps(times[3])

        show = lambda v, unit="": "-" if v is None else f"{v:.2f}{unit}"
        ratio = lambda a, b: None if a is None or b is None else a / b
        print(
            f"| {r['row']} | {show(ours)} | {show(ours1)} | {show(hot)} | {show(fresh)} | {show(numpy_gbps)} | "
            f"{show(torch_gbps)} | {show(ort_gbps)} | {show(ort_fresh_gbps)} | {show(ratio(ours1, numpy_gbps), '×')} | "
            f"{show(ratio(ours, torch_gbps), '×')} | {show(ratio(hot, ort_gbps), '×')} | "
            f"{show(ratio(fresh, ort_fresh_gbps), '×')} | {show(ratio(fresh, ort_gbps), '×')} | "
            f"{show(ratio(2 * ort_gbps if ort_gbps else None, copy_hot))} | {show(ratio(probe, ort_gbps), '×')} |"
        )
    if ort:
        print()
        for arena, own in sorted(owns, reverse=True):
            print(f"ONNX Runtime with the arena {'on' if arena else 'off'}: the returned arrays own their data: {own}.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/convert-bench.csv", *sys.argv[2:3])
