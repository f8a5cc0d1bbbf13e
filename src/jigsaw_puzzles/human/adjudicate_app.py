"""The Gradio page of ``jigsaw-puzzles adjudicate RUN_DIR`` (:mod:`.adjudicate`): a person reads each unread output
beside its item and decides which answer it gives, or that it gives none.

The item is shown as the human test shows it (:mod:`.app`: the exact PNGs the model received, in the question's
numbering, on the checkerboard; a click zooms), with the question as sent, the options and the output verbatim.
The answer is picked as the task asks for it: a letter (a click or its key), the three anomaly fields, or an order
typed in the task's exact format (read by the strict reader; anything else is refused and nothing is recorded).
"No answer given" records that the output names no single answer. The reader's own reading is never offered: a
person decides, nothing is pre-filled.
"""
from __future__ import annotations

import html

from ..errors import UserError
from ..spec import ANOMALY, CHOICE, LETTERS, get as get_spec
from .adjudicate import Adjudication, check_name
from .app import PAINTED, _gr, images_html, position_choices, question_html

OUTPUT_CSS = """
.jp-output { white-space: pre-wrap; font-family: monospace; font-size: 14px; border: 1px solid #bbb;
             padding: 8px; max-height: 420px; overflow: auto; }
"""


def output_html(text) -> str:
    """The model's output verbatim (nothing read as Markdown or HTML)."""
    return f'<div class="jp-output" id="jp-output-text">{html.escape(str(text or ""), quote=False)}</div>'


def options_md(config: str, options) -> str:
    spec = get_spec(config)
    if spec.kind != CHOICE:
        return ""
    if options and list(options) != list(spec.letters)[:len(options)]:  # option texts, not the letters themselves
        return "**Options**\n\n" + "\n".join(f"- {LETTERS[i]}. {html.escape(str(o))}" for i, o in enumerate(options))
    return f"**Options:** {', '.join(spec.letters)}"


def adjudicate_app(adj: Adjudication):
    """The adjudication page as a ``gradio.Blocks``: the person's name, then every unread output they have not
    decided."""
    gr = _gr()
    with gr.Blocks(title="Jigsaw-Puzzles: adjudicate unread answers") as demo:
        name_state, item_state = gr.State(None), gr.State(None)
        gr.Markdown(f"## Jigsaw-Puzzles: what does this output answer?\n\nRun `{adj.rundir.path}` · model "
                    f"`{adj.run.get('model')}` · {len(adj.unread)} outputs the reader could not read")
        with gr.Column(visible=True) as intro:
            gr.Markdown("For each output, decide which single answer it gives, as you read it, or that it gives "
                        "none. Do not solve the puzzle: the question is what the output says, not what is right. "
                        "Your name and the time are recorded with each decision; entering the same name later "
                        "resumes where you stopped.")
            name_box = gr.Textbox(label="Your name", placeholder="e.g. Ada", elem_id="jp-name")
            start = gr.Button("Start", variant="primary", elem_id="jp-start")
            intro_msg = gr.Markdown(elem_id="jp-intro-message")
        with gr.Column(visible=False) as page:
            progress = gr.Markdown(elem_id="jp-progress")
            images = gr.HTML(elem_id="jp-images")
            question = gr.HTML(elem_id="jp-question")
            options = gr.Markdown(elem_id="jp-options")
            gr.Markdown("**The model's output**")
            output = gr.HTML(elem_id="jp-output")
            with gr.Row(visible=False) as choice_row:
                letters = [gr.Button(L, elem_classes=[f"jp-key-{L}", "jp-letter"], min_width=80) for L in LETTERS]
            with gr.Column(visible=False) as anomaly_box:
                judgment = gr.Radio([("A. Correct", "A"), ("B. Incorrect", "B")], label="Judgment",
                                    elem_id="jp-judgment")
                position = gr.Radio(position_choices(2, 2), label="Error position (if incorrect)",
                                    elem_id="jp-position")
                etype = gr.Radio([("A. Rotation", "A"), ("B. Mirroring", "B")], label="Error type (if incorrect)",
                                 elem_id="jp-type")
                ad_submit = gr.Button("Submit (Enter)", variant="primary", elem_classes=["jp-key-ENTER"],
                                      elem_id="jp-ad-submit")
            with gr.Column(visible=False) as typed_box:
                typed = gr.Textbox(label="The answer in the task's exact format", elem_id="jp-typed")
                typed_submit = gr.Button("Submit", variant="primary", elem_id="jp-typed-submit")
            none = gr.Button("No answer given", elem_id="jp-none")
            message = gr.Markdown(elem_id="jp-message")
        with gr.Column(visible=False) as finished:
            done_md = gr.Markdown(elem_id="jp-done")

        outs = [intro, page, finished, intro_msg, progress, images, question, options, output, choice_row, *letters,
                anomaly_box, judgment, position, etype, typed_box, typed, message, done_md, item_state, name_state]

        def show(name, note=""):
            item = adj.next_for(name)
            hide = gr.update(visible=False)
            if item is None:
                done = (f"### Thank you, {html.escape(name)}.\n\nYou have decided every unread output of this run "
                        f"({len(adj.unread)}); they are saved in `{adj.rundir.path}/resolutions.jsonl`.")
                return [hide, hide, gr.update(visible=True), "", "", "", "", "", "", hide, *[hide] * len(letters),
                        hide, None, None, None, hide, "", "", done, None, name]
            shown = adj.shown(item)
            config = shown["config"]
            spec = get_spec(config)
            k = len(adj.decided_by(name)) + 1
            head = (f"**Output {k} of {len(adj.unread)}** · `{html.escape(name)}` · {spec.title} · `{item}`: which "
                    "answer does this output give?")
            typed_kind = spec.kind not in (CHOICE, ANOMALY)
            return [hide, gr.update(visible=True), hide, "", head, images_html({"images": shown["images"]}, item),
                    question_html(shown["question"]), options_md(config, shown["options"]),
                    output_html(shown["output"]), gr.update(visible=spec.kind == CHOICE),
                    *[gr.update(visible=spec.kind == CHOICE and i < spec.num_options) for i in range(len(letters))],
                    gr.update(visible=spec.kind == ANOMALY), None,
                    gr.update(value=None, choices=position_choices(*spec.grid)), None,
                    gr.update(visible=typed_kind), "", note, "", item, name]

        def on_start(text):
            try:
                return show(check_name(text))
            except UserError as err:
                return [gr.update()] * 3 + [f"**{err}**"] + [gr.update()] * (len(outs) - 4)

        def decide(name, item, value):
            if not name or not item:
                return [gr.update()] * len(outs)
            try:
                adj.record(name, item, value)
            except UserError as err:  # incomplete: nothing recorded, the output stays
                keep = [gr.update()] * len(outs)
                keep[outs.index(message)] = f"**{err}**"
                return keep
            return show(name)

        start.click(on_start, [name_box], outs).then(None, js=PAINTED)
        name_box.submit(on_start, [name_box], outs).then(None, js=PAINTED)
        for L, button in zip(LETTERS, letters):
            button.click(lambda n, i, L=L: decide(n, i, L), [name_state, item_state], outs).then(None, js=PAINTED)
        ad_submit.click(lambda n, i, j, p, t: decide(n, i, (j, p, t)), [name_state, item_state, judgment, position,
                                                                        etype], outs).then(None, js=PAINTED)
        typed_submit.click(lambda n, i, t: decide(n, i, t or ""), [name_state, item_state, typed], outs
                           ).then(None, js=PAINTED)
        none.click(lambda n, i: decide(n, i, None), [name_state, item_state], outs).then(None, js=PAINTED)
    return demo
