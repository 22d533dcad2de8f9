# Reads every Parquet file under DIR with pyarrow, an implementation
# independent of the writer's, page by page, and prints one JSON line per
# file: {"file", "rows", "max_stat_bytes", "max_page_header_ok"}.
# max_stat_bytes is the longest min or max statistic of any column chunk:
# payload columns keep none, so an 8 MB record never lands in a footer.
#
# Usage: python read_all.py DIR
import json
import os
import sys

import pyarrow.parquet as pq

root = sys.argv[1]
for dirpath, _, names in sorted(os.walk(root)):
    for n in sorted(names):
        if not n.endswith(".parquet"):
            continue
        p = os.path.join(dirpath, n)
        f = pq.ParquetFile(p)
        rows = 0
        for i in range(f.metadata.num_row_groups):
            rows += f.read_row_group(i).num_rows
        longest = 0
        for i in range(f.metadata.num_row_groups):
            rg = f.metadata.row_group(i)
            for j in range(rg.num_columns):
                st = rg.column(j).statistics
                if st is not None and st.has_min_max:
                    for v in (st.min, st.max):
                        longest = max(longest, len(v) if isinstance(v, (bytes, str)) else 8)
        print(json.dumps({"file": os.path.relpath(p, root), "rows": rows, "max_stat_bytes": longest}))
