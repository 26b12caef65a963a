"""Scale-out on Dask (SPEC section 11): ``gc.Function``s over ``dask.array`` arguments.

Calling a ``gc.function`` with Dask arrays returns Dask arrays with the whole-array
meaning, computed block by block; ``gc.dask.map_blocks(fn, *arrays)`` runs ``fn`` on
each block as a whole array, as ``dask.array.map_blocks`` does. Both run on whatever
Dask scheduler is active. See docs/dask.md. Importing this package does not import
Dask (``pip install "graphc[dask]"``; in a clone, ``pip install -e ".[dask]"``).
"""

from graphc.dask.api import is_dask_array, map_blocks
from graphc.dask.programs import backends, stats
from graphc.dask.split import BlockSplitError

__all__ = ["BlockSplitError", "backends", "is_dask_array", "map_blocks", "stats"]
