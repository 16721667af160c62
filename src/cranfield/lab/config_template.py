"""The commented template of a lab configuration that ``cranfield lab init`` writes.

It documents every key :func:`~cranfield.lab.config.load_config` accepts, table by table
(tests/unit/lab/test_config_template.py checks that it names exactly the keys of
:func:`~cranfield.lab.config.declared_keys`, so the two cannot drift), and runs as it is
when written in a clone with the shared data beside it (``../shared``).
"""

from __future__ import annotations

from typing import Final

__all__ = ["TEMPLATE"]

TEMPLATE: Final = """\
# A cranfield lab experiment: run it with `cranfield lab run THIS-FILE`.
#
# Every key the file may hold is below; a commented-out key shows its default (or, where
# the comment says what the default is, an example). Relative paths are
# relative to the folder of this file. Unknown keys and values of the wrong type are errors
# naming the table and the key.

[experiment]
name = "my experiment"                # the report's title
workdir = "lab-out"                   # indexes, runs, results.json, report.html (default: lab-<collection>)
measures = ["AP", "nDCG@10", "P@10"]  # any measure names `cranfield measures` lists
k = 1000                              # documents retrieved per topic (the runs' depth)
# query_field = "title"               # title | description | narrative | title+description
# baseline = "bm25s"                  # the system every other is tested against (default: the first)
# tests = ["t-test"]                  # t-test wilcoxon sign randomization bootstrap
#                                     # tukey-hsd randomized-tukey-hsd
# correction = "holm"                 # none | bonferroni | holm | bh, over every pair x measure
# alpha = 0.05                        # significance level
# seed = 0                            # seed of the randomized tests (and of the folds)
# efficiency = true                   # measure latency and throughput (`--no-efficiency` skips them)
# warmup = 20                         # untimed queries before the latency passes
# repetitions = 3                     # timed passes over the topics; a topic's latency is their median
# concurrency = [1, 2, 4]             # client threads of the throughput measurement
# throughput_passes = 1               # passes over the topics per throughput measurement, at least
# throughput_seconds = 1.0            # seconds per throughput measurement, at least
# isolate = true                      # index in a fresh process, so that peak memory is each system's own

[collection]
# The classic Cranfield collection (cran.all.1400, cran.qry, cranqrel), as in ../shared.
format = "cranfield"
path = "../shared/data/cranfield"     # the folder holding the three files
# Cleverdon's relevance codes to gains ("drop" leaves a code's judgments out):
# gains = { "1" = 4, "2" = 3, "3" = 2, "4" = 1, "5" = 0, "-1" = 0 }
#
# Or your own files (use these keys instead of the three above):
# format = "trec"
# name = "my-collection"              # default: the documents file's name
# documents = "docs.jsonl"            # JSON lines: {"doc_id": ..., "text": ..., "title": ...},
#                                     # or TREC SGML: <DOC><DOCNO>...</DOCNO><TEXT>...</TEXT></DOC>
# topics = "topics.txt"               # TREC topics, TSV or JSON lines (cranfield.lab.read_topics)
# qrels = "qrels.txt"                 # any qrels cranfield reads
#
# Or a dataset of ir_datasets (`pip install -e '.[irds]'` in the clone):
# format = "ir_datasets"
# dataset = "cranfield"

# One [[systems]] table per system; the first is the baseline unless [experiment] says otherwise.
[[systems]]
name = "bm25s"                        # one word: it names the system's files and report rows
engine = "bm25s"                      # bm25s | tantivy | sqlite-fts5 | http | python | run
# k1 = 1.2
# b = 0.75
# method = "lucene"                   # lucene | robertson | atire | bm25l | bm25+
# stopwords = "en"                    # "" for none
# stemmer = "english"                 # a PyStemmer language; "" for none

[[systems]]
name = "sqlite-fts5"
engine = "sqlite-fts5"                # SQLite's full-text search, no extra package
# tokenizer = "porter unicode61 remove_diacritics 2"

# [[systems]]
# name = "tantivy"
# engine = "tantivy"
# tokenizer = "en_stem"
# heap_size = 50000000                # bytes of the indexing memory, at least 15000000
# threads = 1                         # indexing threads

# [[systems]]
# name = "my-server"
# engine = "http"                     # any HTTP endpoint answering JSON (a GET, or a POST with body)
# url = "http://127.0.0.1:8080/search?q={query}&k={k}"
# body = { query = "{query}", size = "{k}" }  # sends a POST with this JSON
# hits = "hits"                       # dotted path of the hit list; "" if the answer is the list
# doc_id = "doc_id"                   # dotted path of a hit's id
# score = "score"                     # dotted path of a hit's score
# headers = { Authorization = "Bearer ..." }  # sent to the url's own origin only
# timeout = 30.0                      # seconds per request
# max_response_bytes = 67108864
# redirects = "same-origin"           # same-origin | any | none

# [[systems]]
# name = "mine"
# engine = "python"                   # your own code, as module:function; a module
#                                     # beside this file imports without PYTHONPATH.
#                                     # Any module:function runs (os:system too): a
#                                     # configuration is code, run only one you trust
# factory = "my_engine:make"          # called as make(name=..., **params); returns a system
# params = { size = 10 }
# search = "my_engine:search"         # or: search(query, k) -> {doc_id: score} or [(doc_id, score)]
# index = "my_engine:index"           # optional, with search: index(documents, folder)
# load = "my_engine:load"             # optional, with search: load(folder)

# [[systems]]
# name = "submitted"
# engine = "run"                      # a TREC run file made elsewhere: effectiveness only
# path = "runs/submitted.run"

# [evaluation]                        # the evaluation options, as `cranfield evaluate` takes them
# missing = "zero"                    # a judged query a run lacks: zero | skip | error
# relevance_level = 1                 # the lowest judged level binary measures count as relevant
# judged_only = false                 # drop unjudged documents before scoring (trec_eval -J)
# depth = 1000                        # keep each query's first documents only (trec_eval -M); default all
# float32 = false                     # round scores to float32 first (trec_eval 9)
# compat = 10                         # 10 or 9: trec_eval's version of interpolated precision
# num_docs = 0                        # the collection's size, for utility and the set measures
# aggregate = "mean"                  # mean | sum | gmean | median | micro; default each measure's own
# epsilon = 1e-05                     # floor before the logarithm of GMAP
# duplicates = "merge"               # repeated judgments: merge (identical only) | error | first | last | max
# ignore_self = false                 # drop documents whose id is the query id (BEIR ArguAna, Quora)
# qrels_format = "trec"               # the qrels' format (default: detected): trec | msmarco | beir |
#                                     #   csv | tsv | json | jsonl | parquet

# [cross_validation]                  # a cross-validated choice among the systems
# measure = "AP"                      # default: the first of [experiment] measures
# n_folds = 5                         # at least 2
# seed = 0                            # default: [experiment] seed
"""
