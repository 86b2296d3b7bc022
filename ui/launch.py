"""Start the app: `python -m ui.launch [streamlit options]` runs `streamlit run app.py` with one fix.

Streamlit decides, when the first session starts, whether an app uses its old `pages/`-folder mode, by
looking for a folder named `pages` next to the main script. Ours has one (the product layout), yet the
app routes with `st.navigation`; left alone, the first visitor after a server start who opens a deep
link such as /compute gets a "Page not found" dialog. `st.navigation` sets the same class flag to False
on its first run; setting it before the first session gives every visitor the same router.
It also imports the library before serving (see `preload`).
"""

import gc
import importlib
import pkgutil
import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web.cli import main

import explorer
from ui import class_routes, upload_caps

APP = Path(__file__).resolve().parent.parent / "app.py"


def preload() -> None:
    """Import the whole library (torch, numpy, pandas, scipy, plotly with it) before the first session.

    Sessions run in threads; when a class opens the app at once, many threads would import numpy or
    pandas for the first time together, and Streamlit's own lazy checks can then see a half-imported
    module (seen here under load as "partially initialized module 'numpy'"). Importing once, up front,
    also takes those seconds out of the first student's wait.

    The imported modules are then frozen out of the garbage collector: they live as long as the server,
    and without this every full collection walks their few hundred thousand objects again (measured:
    one slider move in about ten took 150-170 ms longer on the cache page, pushing its p95 over 300 ms).
    """
    for info in pkgutil.walk_packages(explorer.__path__, prefix="explorer."):
        if not info.name.endswith("__main__"):  # that one runs the CLI
            importlib.import_module(info.name)
    gc.collect()
    gc.freeze()


if __name__ == "__main__":
    preload()
    class_routes.install()  # class mode's cookie routes (ui/class_routes.py) beside Streamlit's own
    PagesManager.uses_pages_directory = False
    upload_caps.install()  # uploads held per tab, per address and in all are capped (ui/upload_caps.py)
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    sys.exit(main())
