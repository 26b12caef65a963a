"""Scale-out on Dask: one gc.function over a chunked array, on threads and on a cluster.

The function is traced once with the block signature, split into a per-block program
(compiled once per block shape in each worker) and, for the reduction, a per-block
partial plus a combine step run as Dask's tree reduction. Results are checked against
the same gc.function on the NumPy array.

Needs Dask and distributed, graphc's ``dask`` extra (not part of the plain install):

    pip install "graphc[dask]"          # graphc from a package index
    pip install -e ".[dask]"            # in a clone of graphc's repository

Without them this script stops with an error saying so.
"""

import time

import numpy as np

import graphc as gc

try:
    import dask.array as da
    from distributed import Client, LocalCluster
except ImportError as e:
    raise SystemExit(f"dask_scale_out.py needs Dask and distributed ({e}): install graphc's "
                     'dask extra, pip install "graphc[dask]" (in a clone of graphc\'s '
                     'repository: pip install -e ".[dask]"), then run this again') from None


@gc.function
def standardize(x, scale):
    """Elementwise work, a reduction over all elements, then elementwise again."""
    y = gc.sqrt(gc.abs(x) + 1.0) * scale
    return (y - gc.reduce_mean(y)) / (gc.reduce_max(y) - gc.reduce_min(y))


@gc.function
def newton_sqrt(x):
    """A tensor while inside each block: its condition reads no chunked data."""
    y, step = x, gc.constant(0)
    while step < 8:
        y = 0.5 * (y + x / y)
        step += 1
    return y


def main():
    rng = np.random.default_rng(0)
    data = rng.standard_normal(2_000_000).astype(np.float32)
    x = da.from_array(data, chunks=250_000)  # 8 chunks
    scale = np.float32(1.5)

    out = standardize(x, scale)  # a dask.array: nothing has run yet
    print(f"lazy result: {out.shape} {out.dtype}, {out.numblocks[0]} blocks")
    t0 = time.perf_counter()
    got = out.compute(scheduler="threads")
    print(f"threaded scheduler: {time.perf_counter() - t0:.3f} s")
    np.testing.assert_allclose(got, standardize(data, scale).numpy(), rtol=1e-4, atol=1e-6)

    roots = gc.dask.map_blocks(newton_sqrt, da.abs(x) + 1.0)
    np.testing.assert_allclose(roots.compute(), np.sqrt(np.abs(data) + 1.0), rtol=1e-6)
    print("per-block tensor loop: matches np.sqrt")

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        t0 = time.perf_counter()
        got = client.compute(out, sync=True)
        print(f"2-worker LocalCluster: {time.perf_counter() - t0:.3f} s (compiles included)")
        np.testing.assert_allclose(got, standardize(data, scale).numpy(), rtol=1e-4,
                                   atol=1e-6)
        builds = client.run(gc.dask.stats)
        print("programs built per worker:", {w[-5:]: len(s) for w, s in builds.items()})

    @gc.function
    def running_total(x):
        return gc.numpy.cumsum(x, axis=0)

    try:
        running_total(x)
    except gc.dask.BlockSplitError as e:
        print("refused:", str(e).split(": ", 1)[1][:110], "...")


if __name__ == "__main__":
    main()
