"""Publishing: the Hub-ready export (one machine's processes or a Ray cluster), its card, safe output folders, `verify`.
May import: the root foundations, baselines, scoring, generation, inference.
"""
