"""Reporting: run directories read back, Table 2, plots, and paired comparisons of runs (``report --compare``).
May import: the root foundations, baselines, scoring, generation, inference, publishing, human.
"""
