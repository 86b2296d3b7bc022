"""Page computations: each module turns plain arguments into plain data (dicts, arrays, DataFrames)."""
