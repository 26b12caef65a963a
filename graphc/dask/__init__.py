"""Scale-out on Dask (SPEC section 11): ``gc.Function``s over ``dask.array`` arguments.

``gc.dask.map_blocks(fn, *arrays)``, or calling a ``gc.function`` with Dask arrays,
returns Dask arrays computed block by block on whatever Dask scheduler is active. See
docs/dask.md. Importing this package does not import Dask (``pip install graphc[dask]``).
"""

from graphc.dask.api import is_dask_array, map_blocks
from graphc.dask.programs import backends, stats
from graphc.dask.split import BlockSplitError

__all__ = ["BlockSplitError", "backends", "is_dask_array", "map_blocks", "stats"]
