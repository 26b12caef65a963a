"""The root folder of a clone of graphc's repository; the package is ``graphc/`` inside it.

Python imports this folder as a package in two cases, and this file keeps both working:

* Python runs from the folder that *holds* the clone, and the clone's folder is named
  ``graphc``: ``import graphc`` then finds this folder first (the current folder leads
  ``sys.path``, ahead of any installed graphc). Without this file it was an empty
  namespace package (``gc.function`` missing, cryptic errors). Here the package inside
  the clone is loaded in its place, under the same name: ``import graphc`` returns what
  ``sys.modules["graphc"]`` holds once this file has run.
* pytest (8 and later) imports its root folder's ``__init__.py`` while collecting, under
  the folder's own name (``main``, say): nothing happens then, unless that name is
  ``graphc``, where the package is loaded as above, as the tests would load it.

This file is not part of the installed package (``setup.cfg`` packages ``graphc`` only).
"""

import importlib.util
import os
import sys

_PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graphc")

if __name__ == "graphc" and os.path.isfile(os.path.join(_PACKAGE, "__init__.py")):
    _spec = importlib.util.spec_from_file_location(
        "graphc", os.path.join(_PACKAGE, "__init__.py"), submodule_search_locations=[_PACKAGE])
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["graphc"] = _module
    _spec.loader.exec_module(_module)
