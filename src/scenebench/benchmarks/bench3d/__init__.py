"""3DBench (Zhang et al., IJCAI 2024): ten object- and scene-level tasks scored from free-text answers.

Modules: ``tasks`` (the task table), ``records`` (validated ground-truth records), ``writer`` /
``loader`` (benchmark folders in the official JSON shapes), ``predictions`` (answers.jsonl paired by
id), ``parsing`` (the one answer-parsing module), ``scorer`` (the scoring engine adapter).
"""
