# Copyright 2025 The Jigsaw-Puzzles authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Jigsaw-Puzzles metric: exact-match accuracy per task with chance level and exact significance."""
import datasets

import evaluate
from jigsaw_puzzles.scoring.score import score
from jigsaw_puzzles.spec import CITATION, HOMEPAGE


_DESCRIPTION = """
Scores raw VLM responses on the Jigsaw-Puzzles benchmark (Lyu et al., 2025). The final answer is
extracted from each response (bare letters, "Answer: B", \\boxed{B}, reasoning traces, <think> blocks,
three-line anomaly answers, order lists; read only when the text says one thing), compared by exact match with the reference, and reported per
task config together with the accuracy of uniform random guessing, the exact one-sided binomial critical
value at p < 0.05, the p-value, a 95% Clopper-Pearson interval and the share of unreadable responses.
"overall" is the mean over the paper's seven Table-2 columns that are present.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: List of raw model responses (str).
    references: List of reference answers, `row["answer"]` of the Jigsaw-Puzzles dataset.
    configs: List with the config name of each item (e.g. "anomaly_detection").
    options: Optional, a keyword of `compute()`: each item's `row["options"]`, in the order of all
        predictions; lets an Order Restoration answer given as the list itself (instead of its letter)
        be mapped to the letter of the matching option.
Returns:
    A dict keyed by config name, plus "overall", each a dict with:
    accuracy: exact-match accuracy in % (0-100).
    n: number of items.
    correct: number of correct items.
    strict_accuracy, strict_correct: the same counting only answers in the task's exact format (the whole
        response or its last line: "B" or "Answer: B", "[2, 3, 1, 4]", the three-line anomaly block); the gap to
        accuracy is how much the extraction decided ("overall" has strict_accuracy).
    chance: expected accuracy (%) of uniform random guessing over the answer space.
    critical_value: smallest accuracy (%) that beats chance at p < 0.05 (exact one-sided test).
        For "overall" this is the paper's mean of the column critical values;
        "critical_value_exact" is the exact test on the mean.
    p_value: one-sided p-value of the observed accuracy against random guessing.
    ci_low, ci_high: 95% interval (%), Clopper-Pearson per config; for "overall" the same rule on the mean over
        the effective count k^2 / sum(1/n_i) (one config: that config's interval).
    invalid_rate: % of responses whose answer could not be read (ambiguous or invalid); they score 0.
    ambiguous_rate: % of responses naming several answers.
    anomaly_detection also has judgment_accuracy, position_accuracy, type_accuracy and n_altered;
    order_generation also has position_accuracy and kendall_tau.
Examples:
    >>> import jigsaw_puzzles as jp
    >>> jigsaw = evaluate.load(jp.METRIC_PATH)  # the metric ships inside the package: any folder, offline
    >>> results = jigsaw.compute(
    ...     predictions=["B", "The answer is (C).", "[2, 3, 1, 4]"],
    ...     references=["B", "A", "[2, 3, 1, 4]"],
    ...     configs=["missing_piece_selection_easy", "missing_piece_selection_easy", "order_generation"],
    ... )
    >>> print(results["missing_piece_selection_easy"]["accuracy"], results["order_generation"]["accuracy"])
    50.0 100.0
"""

_CITATION = CITATION


_FEATURES = datasets.Features({
    "predictions": datasets.Value("string"),
    "references": datasets.Value("string"),
    "configs": datasets.Value("string"),
})


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class JigsawPuzzles(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            reference_urls=[HOMEPAGE],
        )

    def _compute(self, predictions, references, configs, options=None):
        return score(predictions, references, configs, options=options)
