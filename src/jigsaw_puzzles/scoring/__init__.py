"""Scoring: reading the answer out of model text (extraction), exact match, chance, critical values and intervals,
and the shipped `evaluate` metric. May import: the root foundations only.
"""
