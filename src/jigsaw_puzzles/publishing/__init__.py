"""Publishing: the Hub-ready export, its dataset card, the safe replacement of output folders, and `verify` of an
export (read as `datasets` reads it, then rebuilt here).
May import: the root foundations, baselines, scoring, generation, inference.
"""
