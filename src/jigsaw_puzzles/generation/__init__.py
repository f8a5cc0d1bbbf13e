"""Item generation: source photos, curation, answer plan, `datasets` builder, one module per task, CLIP distractors,
the interlocking cut (tabs/), prompt variants, circular rotations. May import: the root foundations, baselines, scoring.
"""
