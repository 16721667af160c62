"""``cranfield.lab``: laboratory experiments with real search engines.

Systems under test (:class:`System` and its adapters), efficiency measurement (indexing
time, memory and size, latency percentiles, throughput), the :class:`Experiment` runner and
its TOML configuration, test collection readers, training/testing splits with
cross-validated selection, and pooling (:func:`pool_study`: a pool, its export, judged@k and
the leave-one-run-out test in one call).

>>> from cranfield.lab import kfold
>>> kfold(["q1", "q2", "q3", "q4"], 2, seed=7) == kfold(["q4", "q3", "q2", "q1"], 2, seed=7)
True
"""

from cranfield.lab.collections import (
    CRANFIELD_GAINS,
    Collection,
    Document,
    Topic,
    from_ir_datasets,
    read_cranfield,
    read_topics,
    read_trec_documents,
)
from cranfield.lab.config import load_config, make_system
from cranfield.lab.efficiency import (
    IndexStats,
    LatencyStats,
    Machine,
    ThroughputStats,
    directory_size,
    measure_indexing,
    measure_latency,
    measure_throughput,
)
from cranfield.lab.experiment import Experiment
from cranfield.lab.folds import (
    CrossValidation,
    FoldOutcome,
    Selection,
    SelectionBiasWarning,
    cross_validate,
    cross_validate_scores,
    kfold,
    select,
)
from cranfield.lab.pooling import (
    LeaveOneOut,
    Pool,
    PoolStudy,
    judged_at_k,
    leave_one_out,
    merge_judgments,
    pool,
    pool_study,
)
from cranfield.lab.result import ExperimentResult, SystemResult
from cranfield.lab.systems import (
    BM25S,
    CallableSystem,
    EngineError,
    HTTPSystem,
    PrecomputedRun,
    SQLiteFTS5,
    System,
    Tantivy,
)

__all__ = [
    "BM25S",
    "CRANFIELD_GAINS",
    "CallableSystem",
    "Collection",
    "CrossValidation",
    "Document",
    "EngineError",
    "Experiment",
    "ExperimentResult",
    "FoldOutcome",
    "HTTPSystem",
    "IndexStats",
    "LatencyStats",
    "LeaveOneOut",
    "Machine",
    "Pool",
    "PoolStudy",
    "PrecomputedRun",
    "SQLiteFTS5",
    "Selection",
    "SelectionBiasWarning",
    "System",
    "SystemResult",
    "Tantivy",
    "ThroughputStats",
    "Topic",
    "cross_validate",
    "cross_validate_scores",
    "directory_size",
    "from_ir_datasets",
    "judged_at_k",
    "kfold",
    "leave_one_out",
    "load_config",
    "make_system",
    "measure_indexing",
    "measure_latency",
    "measure_throughput",
    "merge_judgments",
    "pool",
    "pool_study",
    "read_cranfield",
    "read_topics",
    "read_trec_documents",
    "select",
]
