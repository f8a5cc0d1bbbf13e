"""Jigsaw-Puzzles for verl: the row layout of verl's multimodal RL dataset, and its custom reward function.

verl 0.9.1's ``RLHFDataset`` (verl/utils/dataset/rl_dataset.py) reads parquet rows with ``prompt`` (chat messages
whose ``<image>`` placeholders are filled, one to one and in order, from ``images``), ``images``, ``data_source``,
``reward_model.ground_truth`` and ``extra_info``; its reward loading (verl/trainer/ppo/reward.py) finds a function
through ``reward.custom_reward_function.{path,name}`` and calls it as ``compute_score(data_source=...,
solution_str=..., ground_truth=..., extra_info=...)`` plus ``reward.custom_reward_function.reward_kwargs``.

:func:`verl_row` is the row of one item; :func:`compute_score` reads the response with this package's reader
(:mod:`jigsaw_puzzles.training.rewards`, the rewards TRL gets, so the same answer earns the same reward) and
returns verl's dict: ``score`` (the chosen reward, plus ``format_weight`` times the format reward) and every reward
beside it (``acc`` = exact, ``position``, ``adjacency``, ``format``), which verl logs per data source.

:func:`stream_rows` is the first N items of ``jp.training_stream`` as verl rows, and ``StreamDataset`` verl's
``RLHFDataset`` holding them (``data.custom_cls.path=pkg://jigsaw_puzzles.integrations.verl``,
``data.custom_cls.name=StreamDataset``): ``data.train_files`` is then the folder of training photos (local or an
fsspec URL) and ``data.jigsaw`` says ``size``, ``seed``, ``exclude`` and ``mixture``; a ``.parquet`` file (the
``val.parquet`` of ``jigsaw-puzzles export verl``) is read as verl reads it. The class is made when verl asks for
it (it subclasses verl's), so nothing here imports verl before.

This file imports the package absolutely (never relatively), so verl can load it by its file path
(``reward.custom_reward_function.path=$(python -c 'import jigsaw_puzzles.integrations.verl as v;
print(v.__file__)')``) as well as by ``pkg://jigsaw_puzzles.integrations.verl``; it needs neither verl nor torch.
"""
from __future__ import annotations

import functools
import json
from itertools import islice
from typing import Any, Mapping, Optional

from jigsaw_puzzles.errors import UsageError
from jigsaw_puzzles.spec import config_from_id, is_config
from jigsaw_puzzles.training import rewards

#: verl's image placeholder in ``prompt`` (``RLHFDataset._build_messages`` splits the content on it).
IMAGE = "<image>"
#: The rewards :func:`compute_score` can put in ``score`` (``reward_kwargs: {reward: position}``).
REWARDS = {"exact": rewards.exact_reward, "position": rewards.position_reward,
           "adjacency": rewards.adjacency_reward}
ABILITY = "spatial_reasoning"


def verl_row(item: Mapping[str, Any], index: int, split: str) -> dict:
    """One item (a ``jp.load_dataset`` or training-stream row) as verl's RL row: one user turn holding one
    ``<image>`` per image (in the order the question numbers them) and then the question; ``data_source`` = the
    config; ``extra_info`` keeps what the reader needs (config, options, metadata) and the item's id."""
    config = config_from_id(item["id"])
    images = list(item["images"])
    question = item["question"]
    if IMAGE in question:  # verl would take it for an image of its own and pair every image with the wrong slot
        raise ValueError(f"{item['id']}: the question contains verl's image placeholder {IMAGE!r}")
    return {
        "data_source": config,
        "prompt": [{"role": "user", "content": IMAGE * len(images) + question}],
        "images": images,
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": item["answer"]},
        "extra_info": {"split": split, "index": index, "id": item["id"], "config": config,
                       "options": list(item.get("options") or []), "metadata": _metadata(item.get("metadata"))},
    }


def _metadata(value: Any) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    return json.dumps(value, sort_keys=True)


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: Optional[Mapping] = None,
                  reward: str = "exact", format_weight: float = 0.0, **verl_kwargs: Any) -> dict[str, float]:
    """verl's custom reward: ``{"score": <reward> + format_weight * format, "acc": exact, "position": ...,
    "adjacency": ..., "format": ...}`` for one response, every value from this package's reader.

    ``data_source`` names the config (``extra_info["config"]``, when present, must agree); ``extra_info`` brings
    the item's ``options`` and ``metadata``; the keys verl adds itself (``num_turns``, ``rollout_reward_scores``,
    tool fields) are ignored. A reference or config that cannot be read is a ``ValueError`` (never a guessed
    reward); an unreadable response earns 0.0 from every reward, as in :mod:`jigsaw_puzzles.training.rewards`, and so
    does a ``solution_str`` that is not text (a list, a dict, bytes: the rewards' one type rule, never its
    ``str()``). ``format_weight`` is a finite number in [0, 1], so ``score`` lies in [0, 1 + format_weight].
    ``verl_kwargs``: what verl's reward managers may pass besides (``reward_router_address``, ...), unused."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ValueError(f"compute_score: reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    weight = rewards.check_weight(format_weight, "compute_score: format_weight")
    if extra_info is not None and not isinstance(extra_info, Mapping):
        raise UsageError(f"compute_score: extra_info must be the row's dict (config, options, metadata) or None, not "
                         f"{type(extra_info).__name__} {str(extra_info)[:40]!r}")
    info = dict(extra_info or {})
    config = str(data_source)
    if not is_config(config):
        raise ValueError(f"compute_score: data_source {data_source!r} is not a Jigsaw-Puzzles config")
    if info.get("config") not in (None, config):
        raise ValueError(f"compute_score: data_source {config!r} and extra_info config {info['config']!r} disagree")
    columns = {"answer": [ground_truth], "config": [config], "options": [_options(info.get("options"))],
               "metadata": [info.get("metadata") or None]}
    completion = [solution_str]  # the rewards' one type rule: a str (or TRL's chat form); anything else earns 0.0
    values = {name: fn(completions=completion, **columns)[0] for name, fn in REWARDS.items()}
    values["format"] = rewards.format_reward(completions=completion, **columns)[0]
    return {"score": values[reward] + weight * values["format"], "acc": values["exact"],
            "position": values["position"], "adjacency": values["adjacency"], "format": values["format"]}


def _options(value: Any) -> Optional[list]:
    """Parquet hands ``options`` back as a list or a numpy array; an empty one means the item has none."""
    if value is None:
        return None
    options = [str(o) for o in value]
    return options or None


def features():
    """verl rows' ``datasets.Features`` (imported lazily): ``images`` as an image list, everything else plain."""
    import datasets

    text = datasets.Value("string")
    return datasets.Features({
        "data_source": text,
        "prompt": datasets.List({"role": text, "content": text}),
        "images": datasets.List(datasets.Image()),
        "ability": text,
        "reward_model": {"style": text, "ground_truth": text},
        "extra_info": {"split": text, "index": datasets.Value("int64"), "id": text, "config": text,
                       "options": datasets.List(text), "metadata": text},
    })


def stream_rows(source, size: int, seed: int = 0, exclude: Any = None, mixture: Optional[Mapping[str, float]] = None,
                eval_fraction: float = 0.2):
    """The first ``size`` items of ``jp.training_stream(source, ...)`` (one shard: the whole folder's ``train``
    photos, never one of ``exclude`` or a copy of one) as verl rows, a ``datasets.Dataset`` with the images as PNG.
    The same arguments give the same rows; the guard's verdicts are read from its store when a check made them
    before (``training_stream(..., engine="ray")`` on the cluster)."""
    import datasets

    from jigsaw_puzzles.training.stream import training_stream

    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"stream_rows: size must be a whole number of rows, at least 1, not {size!r}")
    stream = training_stream(source, mixture=dict(mixture) if mixture else None, seed=seed, exclude=exclude,
                             eval_fraction=eval_fraction, num_shards=1)
    rows = [verl_row(item, index, "train") for index, item in enumerate(islice(stream, size))]
    return datasets.Dataset.from_list(rows, features=features())


def __getattr__(name: str):
    if name == "StreamDataset":  # verl's load_extern_object: getattr(module, name)
        return _stream_dataset()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.lru_cache(maxsize=1)
def _stream_dataset():
    from verl.utils.dataset.rl_dataset import RLHFDataset

    class StreamDataset(RLHFDataset):
        """verl's ``RLHFDataset`` whose rows are :func:`stream_rows` of the photo folder in ``data_files`` (what
        verl's ``data.train_files`` names), with ``data.jigsaw.{size, seed, exclude, mixture, eval_fraction}``; a
        parquet file is read as verl reads it (its validation file)."""

        def _streams(self) -> bool:
            return not all(str(f).endswith((".parquet", ".json")) for f in self.original_data_files)

        def _download(self, use_origin_parquet=False):
            if not self._streams():
                super()._download(use_origin_parquet)

        def _read_files_and_tokenize(self):
            if not self._streams():
                return super()._read_files_and_tokenize()
            if len(self.original_data_files) != 1:
                raise ValueError(f"StreamDataset streams one folder of training photos, not {self.original_data_files}")
            jigsaw = dict(self.config.get("jigsaw") or {})
            exclude = jigsaw.get("exclude")  # hydra hands a list as a ListConfig
            exclude = exclude if exclude is None or isinstance(exclude, str) else [str(x) for x in exclude]
            self.dataframe = stream_rows(str(self.original_data_files[0]), size=int(jigsaw.get("size", 1024)),
                                         seed=int(jigsaw.get("seed", 0)), exclude=exclude,
                                         mixture=jigsaw.get("mixture"),
                                         eval_fraction=float(jigsaw.get("eval_fraction", 0.2)))
            self.dataframe = self.maybe_filter_out_long_prompts(self.dataframe)

    return StreamDataset
