"""The floor: a bare ``polars.read_csv`` of the run file, nothing else.

Usage: ``python polars_floor.py RUN``. Default type inference (integer ids here); prints the
row count so the read cannot be skipped.
"""

import json
import sys

import polars as pl


def main() -> None:
    frame = pl.read_csv(sys.argv[1], separator=" ", has_header=False)
    print(json.dumps({"rows": frame.height}))


if __name__ == "__main__":
    main()
