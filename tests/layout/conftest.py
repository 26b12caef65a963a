"""Makes ``import_graph`` (this folder's script) importable by the tests beside it."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
