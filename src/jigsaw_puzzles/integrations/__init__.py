"""Integrations: the package as other harnesses run it (lmms-eval, VLMEvalKit, Inspect AI, verifiers).
May import: every area below it (all but the CLI and the package face).

Modules: lmms-eval task folders (``lmms_eval_tasks``); VLMEvalKit TSVs and dataset class (``vlmevalkit``,
``vlmevalkit_dataset``); Inspect AI tasks and the ``jigsaw`` model provider (``inspect_eval``, ``inspect_model``);
verifiers tasksets, single-turn and multi-turn (``verifiers_env``, ``verifiers_game``; their verifiers ids are the
top-level shims ``jigsaw_puzzles_rl`` and ``jigsaw_puzzles_game``).
"""
