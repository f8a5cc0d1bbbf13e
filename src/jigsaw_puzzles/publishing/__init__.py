"""Publishing: the Hub-ready export, its dataset card, safe replacement of output folders, `verify` of an export.
May import: the root foundations, baselines, scoring, generation, inference.
"""
