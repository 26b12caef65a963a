"""The reference tests import ``ag_testing`` from tests/autograph, one folder up.

pytest (rootdir-relative ``prepend`` import mode, no ``__init__.py``) puts the folder of
each test file on ``sys.path``: tests/autograph for the tests there, this folder for the
ones here. Adding the parent folder makes ``from ag_testing import ...`` work the same way
in both places; ``ref_testing`` (this folder) is found as is.
"""

import os
import sys

_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PARENT not in sys.path:
    sys.path.insert(0, _PARENT)
