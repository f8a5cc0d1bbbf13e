"""Integrations: the package as other harnesses run it (lmms-eval task folders, VLMEvalKit TSVs and dataset class).
May import: every area below it (all but the CLI and the package face).
"""
