"""Reporting: run directories read back and verified (``verify RUN_DIR``), Table 2, plots, ``report --compare``.
May import: the root foundations, baselines, scoring, generation, inference, publishing, human.
"""
