"""Item generation: source photos (a folder or a URL), curation, answer plan, `datasets` builder, one module per task,
CLIP distractors, tabs/, prompt variants, circular rotations, the Ray engine. May import: the root foundations,
baselines, scoring.
"""
