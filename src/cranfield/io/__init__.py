"""Reading and writing judgments, runs and trec_eval output."""

from cranfield.io.load import load_qrels, load_run
from cranfield.io.trec import read_qrels, read_run, write_qrels, write_run

__all__ = ["load_qrels", "load_run", "read_qrels", "read_run", "write_qrels", "write_run"]
