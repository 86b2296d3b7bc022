"""Start the app: `python -m ui.launch [streamlit options]` runs `streamlit run app.py` with one fix.

Streamlit decides, when the first session starts, whether an app uses its old `pages/`-folder mode, by
looking for a folder named `pages` next to the main script. Ours has one (the product layout), yet the
app routes with `st.navigation`; left alone, the first visitor after a server start who opens a deep
link such as /compute gets a "Page not found" dialog. `st.navigation` sets the same class flag to False
on its first run; setting it before the first session gives every visitor the same router.
"""

import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web.cli import main

APP = Path(__file__).resolve().parent.parent / "app.py"

if __name__ == "__main__":
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    sys.exit(main())
