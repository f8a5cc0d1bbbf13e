"""Publishing: the Hub-ready export, its dataset card and the safe replacement of output folders.
May import: the root foundations, baselines, scoring, generation, inference.
"""
