"""The sections under a page's first screen, one module per page file (named after it), kept out of the thin page."""
