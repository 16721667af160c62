"""The floor of fusing two runs with polars as the file engine: read both, write as many lines.

Usage: ``python polars_fuse_floor.py RUN_A RUN_B OUT LINES``. Each run is read with
``polars.read_csv`` projected to the query, document and score columns (what cranfield's
reader keeps, with none of its checks); then ``LINES`` lines of six fields are written with
``DataFrame.write_csv``: the first ``LINES`` rows of both runs, each score divided by 7 so
that it is written with as many digits as a fused score has. Nothing is fused, ranked or
checked: a process doing only this sets the least time any fusion built on polars' reader
and writer can take. Prints the lines and bytes written.
"""

import json
import os
import sys

import polars as pl

SCHEMA = {
    "q": pl.String,
    "it": pl.String,
    "doc": pl.String,
    "rank": pl.String,
    "score": pl.Float64,
    "tag": pl.String,
}


def main() -> None:
    run_a, run_b, out, lines = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    read = [
        pl.read_csv(
            path,
            separator=" ",
            has_header=False,
            quote_char=None,
            schema=SCHEMA,
            columns=[0, 2, 4],
        )
        for path in (run_a, run_b)
    ]
    rows = pl.concat(read).head(lines)
    rows.select(
        "q",
        pl.lit("Q0").alias("it"),
        "doc",
        pl.int_range(1, pl.len() + 1).alias("rank"),
        pl.col("score") / 7.0,
        pl.lit("fused").alias("tag"),
    ).write_csv(out, separator=" ", include_header=False, quote_style="never")
    print(json.dumps({"lines": rows.height, "bytes": os.path.getsize(out)}))


if __name__ == "__main__":
    main()
