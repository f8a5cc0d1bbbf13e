"""Item generation: source photos and their curation, the answer plan, the `datasets` builder, one module per task,
CLIP-mined distractors, prompt variants and circular rotations. May import: the root foundations, baselines, scoring.
"""
