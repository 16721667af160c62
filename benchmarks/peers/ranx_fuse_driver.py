"""ranx's fusion the way its users call it: ``Run.from_file`` twice, ``fuse``, ``save``.

Usage: ``python ranx_fuse_driver.py RUN_A RUN_B OUT [--cold]``. ``fuse(runs, norm="min-max",
method="rrf")`` (k = 60), then the fused run written as TREC text. ``--cold`` points numba's
cache at a fresh empty folder before ranx is imported, so every jitted function is compiled
in this process, as on a first use (or any use where the cache cannot be written); without
it the compiled functions come from the cache beside ranx's sources. Numba threads: ranx's
default (all cores).
"""

import os
import shutil
import sys
import tempfile


def main() -> None:
    cold = "--cold" in sys.argv
    cache = tempfile.mkdtemp(prefix="ranx-numba-") if cold else None
    if cache:
        os.environ["NUMBA_CACHE_DIR"] = cache
    try:
        from ranx import Run, fuse

        runs = [Run.from_file(path, kind="trec") for path in sys.argv[1:3]]
        fused = fuse(runs, norm="min-max", method="rrf")
        fused.save(sys.argv[3], kind="trec")
        print(len(fused.keys()))
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
