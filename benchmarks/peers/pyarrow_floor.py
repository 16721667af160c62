"""A second floor: a bare ``pyarrow.csv.read_csv`` of the run file, nothing else.

Usage: ``python pyarrow_floor.py RUN``. Prints the row count.
"""

import json
import sys

from pyarrow import csv


def main() -> None:
    table = csv.read_csv(
        sys.argv[1],
        read_options=csv.ReadOptions(autogenerate_column_names=True),
        parse_options=csv.ParseOptions(delimiter=" "),
    )
    print(json.dumps({"rows": table.num_rows}))


if __name__ == "__main__":
    main()
