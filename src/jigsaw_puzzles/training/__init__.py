"""Training: the endless RL stream with its contamination guard, verifiable rewards and the TRL helpers (prompts,
reward functions, compute_metrics). May import: the root foundations, baselines, scoring, generation, publishing.
"""
