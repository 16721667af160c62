"""The evaluation layer: the object that binds qrels, measures and options once.

:class:`Evaluator` scores one run, a run streamed in blocks, or many runs into one aligned
:class:`ScoreTable`; :class:`EvalOptions` holds the evaluation options, validated once;
:func:`cranfield.evaluate` and :func:`cranfield.evaluate_stream` are thin convenience
functions over an :class:`Evaluator`.
"""
