"""The Gradio pages: the human test (:func:`test_app`) and the browser of items with their answers (:func:`browse_app`).

The images are shown as the exact PNGs a model receives, in the order the question numbers them, at their own
size (a click zooms one to the window; Esc or a click closes it), on the checkerboard of ``show`` (the interlocking
pieces' transparent area shows as such, whatever the page's theme). The response time runs from the item's first
paint (its images loaded, then two animation frames) to the click that answers it, measured in the browser with
``performance.now()`` and sent with the answer; the server records it in the run directory at once.
"""
from __future__ import annotations

import base64
import html
import io
import json
import re

from ..errors import UserError, install_hint
from ..spec import ANOMALY, CHOICE, CONFIGS, LETTERS, ORDER, ORIENTED, ROTATIONS, get as get_spec, is_config
from ..generation.sheet import CHECKER
from .session import HumanTest

MAX_LETTERS = len(LETTERS)  # Piece Localization on a grid may mask up to 26 cells
MAX_PIECES = 64  # an 8x8 order grid; keys type 1-9, larger numbers are clicked
#: Under the header of an item with interlocking pieces (the ``_tabs`` configs and their silhouettes).
TRANSPARENT_NOTE = "The grey checkerboard is the transparent area of an image: it is not part of the picture."

HEAD = r"""<script>
window.jpT0 = null; window.jpShown = null;
window.jpElapsed = () => {
  const box = document.querySelector('.jp-item');
  if (!box || window.jpT0 === null || box.dataset.item !== window.jpShown) return '';
  return String(((performance.now() - window.jpT0) / 1000).toFixed(3));
};
window.jpSlots = (o) => String(o || '').replace(/[\[\]\s]/g, '').split(',').filter(v => v !== '');
window.jpJoin = (s) => '[' + s.join(', ') + ']';
window.jpOrderAdd = (o, k) => {
  const s = window.jpSlots(o), i = s.indexOf('_');
  return (i < 0 || k > s.length || s.includes(String(k))) ? o : (s[i] = String(k), window.jpJoin(s));
};
window.jpOrderUndo = (o) => {
  const s = window.jpSlots(o); let i = s.indexOf('_'); i = (i < 0 ? s.length : i) - 1;
  if (i >= 0) s[i] = '_';
  return window.jpJoin(s);
};
window.jpOrderClear = (o) => window.jpJoin(window.jpSlots(o).map(() => '_'));
window.jpTurnAdd = (o, r) => {
  const s = window.jpSlots(o), i = s.indexOf('_');
  return i < 0 ? o : (s[i] = String(r), window.jpJoin(s));
};
window.jpPainted = async () => {
  const sleep = (ms) => new Promise(r => setTimeout(r, ms));
  for (let k = 0; k < 150; k++) {  // wait for the new item's markup (up to 3 s)
    const box = document.querySelector('.jp-item');
    if (box && box.dataset.item !== window.jpShown) break;
    await sleep(20);
  }
  const box = document.querySelector('.jp-item');
  if (!box || box.dataset.item === window.jpShown) return;
  await Promise.all([...box.querySelectorAll('img')].map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r, {once: true}); i.addEventListener('error', r, {once: true}); })));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  window.jpShown = box.dataset.item; window.jpT0 = performance.now();
};
document.addEventListener('keydown', (e) => {
  const t = e.target;
  const typing = t && (t.tagName === 'TEXTAREA' || t.isContentEditable ||
    (t.tagName === 'INPUT' && !['radio', 'checkbox', 'button', 'range'].includes(t.type)));
  if (typing) return;
  const zoom = document.getElementById('jp-zoom');
  if (zoom) { if (e.key === 'Escape') zoom.remove(); return; }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key.length === 1 ? e.key.toUpperCase() : e.key.toUpperCase();
  const hit = [...document.querySelectorAll('.jp-key-' + key)].find(b => b.offsetParent !== null && !b.disabled);
  if (hit) { e.preventDefault(); hit.click(); }
});
document.addEventListener('click', (e) => {
  const img = e.target.closest && e.target.closest('img.jp-img');
  const zoom = document.getElementById('jp-zoom');
  if (zoom && e.target.closest('#jp-zoom')) { zoom.remove(); return; }
  if (!img) return;
  const over = document.createElement('div');
  over.id = 'jp-zoom';
  over.innerHTML = '<img alt="zoomed ' + img.alt + '" src="' + img.src + '"><span>' + img.alt + ' - Esc or click to close</span>';
  // the image's own box scaled to the window: the checkerboard lies under the image only, never beside it
  const s = Math.min(innerWidth * 0.92 / img.naturalWidth, innerHeight * 0.88 / img.naturalHeight);
  over.firstChild.style.width = Math.round(img.naturalWidth * s) + 'px';
  over.firstChild.style.height = Math.round(img.naturalHeight * s) + 'px';
  document.body.appendChild(over);
});
</script>"""

#: The checkerboard under every image (``generation.sheet.CHECKER``, as ``show`` draws it): a transparent pixel shows
#: as such, whatever the page's theme.
_DARK, _LIGHT = (f"rgb({t}, {t}, {t})" for t in CHECKER[:2])
CHECKERBOARD = (f"img.jp-img, #jp-zoom img {{ background-color: {_LIGHT}; background-image: conic-gradient("
                f"transparent 25%, {_DARK} 0 50%, transparent 0 75%, {_DARK} 0); "
                f"background-size: {2 * CHECKER[2]}px {2 * CHECKER[2]}px; }}\n")
CSS = """
.jp-item { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
.jp-item figure { margin: 0; text-align: center; }
.jp-item img.jp-img { max-width: 100%; border: 1px solid #bbb; cursor: zoom-in; display: block; }
.jp-question { white-space: pre-wrap; font-size: 15px; line-height: 1.45; margin: 8px 0; }
.jp-item figcaption { font-family: monospace; font-size: 14px; margin-top: 4px; }
#jp-zoom { position: fixed; inset: 0; background: rgba(0, 0, 0, .88); z-index: 10000; display: flex;
           flex-direction: column; align-items: center; justify-content: center; cursor: zoom-out; }
#jp-zoom img { image-rendering: pixelated; }
#jp-zoom span { color: #eee; font-family: monospace; margin-top: 6px; }
""" + CHECKERBOARD

# After every update of the item: note its first paint (the response time starts there).
PAINTED = "async () => { await window.jpPainted(); }"
# Before an answer goes to the server: replace the last input (the response time) with the browser's measure.
WITH_TIME = "(...args) => { args[args.length - 1] = window.jpElapsed(); return args; }"


def _png(image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def images_html(row: dict, item_id: str) -> str:
    """The item's images as ``<figure>``s captioned ``<image k>``, in the question's numbering."""
    figs = [f'<figure><img class="jp-img" alt="image {k}" src="data:image/png;base64,{_png(im)}">'
            f"<figcaption>&lt;image {k}&gt; {im.width}x{im.height}</figcaption></figure>"
            for k, im in enumerate(row["images"], 1)]
    return f'<div class="jp-item" data-item="{html.escape(item_id, quote=True)}">' + "".join(figs) + "</div>"


def position_choices(rows: int, cols: int) -> list[tuple[str, str]]:
    """Anomaly Detection's error positions as the question names them (the paper's four corners on 2x2)."""
    if (rows, cols) == (2, 2):
        return [("A. Top-left", "A"), ("B. Top-right", "B"), ("C. Bottom-left", "C"), ("D. Bottom-right", "D")]
    return [(f"{LETTERS[r * cols + c]}. Row {r + 1}, column {c + 1}", LETTERS[r * cols + c])
            for r in range(rows) for c in range(cols)]


def order_numbers(text: str) -> list[int] | None:
    """The order editor's ``[3, 2, _, _]`` as numbers; None while a slot is empty (the answer is refused)."""
    return None if "_" in str(text) else [int(v) for v in re.findall(r"\d{1,4}", str(text or ""))]


def question_html(text: str) -> str:
    """The question exactly as written (its line breaks kept, nothing read as Markdown)."""
    return f'<div class="jp-question">{html.escape(text, quote=False)}</div>'


def _gr():
    try:
        import gradio as gr
    except ImportError:
        raise UserError(f"the app needs Gradio: {install_hint('app')}") from None
    return gr


def test_app(test: HumanTest):
    """The human test as a ``gradio.Blocks``: participant id, then every item in that participant's order."""
    gr = _gr()
    keys_help = {CHOICE: "keys: the option letter", ANOMALY: "keys: Enter submits",
                 ORDER: "keys: 1-9 add an image, Backspace undoes, Enter submits",
                 ORIENTED: "keys: 1-9 add an image, Q/W/E/R its clockwise turn 0/90/180/270, Enter submits"}

    with gr.Blocks(title="Jigsaw-Puzzles: human baseline") as demo:
        pid_state, item_state = gr.State(None), gr.State(None)
        gr.Markdown("## Jigsaw-Puzzles: human baseline")
        with gr.Column(visible=True) as intro:
            fewest, most = test.per_participant  # items that give each other away are withheld: one of each group
            count = fewest if fewest == most else f"{fewest} to {most}"
            gr.Markdown(f"You will see {count} puzzles ({test.split} split, "
                        f"{', '.join(get_spec(c).title for c in test.datasets)}), one at a time, exactly as a model "
                        "sees them. Answer each as well and as quickly as you can; the time from the moment the "
                        "images appear to your answer is recorded. Click an image to zoom. You can stop at any "
                        "time: entering the same id later resumes where you stopped.")
            pid_box = gr.Textbox(label="Participant id", placeholder="e.g. p01", elem_id="jp-participant")
            start = gr.Button("Start", variant="primary", elem_id="jp-start")
            intro_msg = gr.Markdown(elem_id="jp-intro-message")
        with gr.Column(visible=False) as page:
            progress = gr.Markdown(elem_id="jp-progress")
            images = gr.HTML(elem_id="jp-images")
            question = gr.HTML(elem_id="jp-question")
            with gr.Row(visible=False) as choice_row:
                letters = [gr.Button(L, elem_classes=[f"jp-key-{L}", "jp-letter"], min_width=80)
                           for L in LETTERS[:MAX_LETTERS]]
            with gr.Column(visible=False) as anomaly_box:
                judgment = gr.Radio([("A. Correct", "A"), ("B. Incorrect", "B")], label="1. Judgment",
                                    elem_id="jp-judgment")
                position = gr.Radio([("A. Top-left", "A"), ("B. Top-right", "B"), ("C. Bottom-left", "C"),
                                     ("D. Bottom-right", "D")], label="2. Error position (if incorrect)",
                                    elem_id="jp-position")
                etype = gr.Radio([("A. Rotation", "A"), ("B. Mirroring", "B")], label="3. Error type (if incorrect)",
                                 elem_id="jp-type")
                ad_submit = gr.Button("Submit (Enter)", variant="primary", elem_classes=["jp-key-ENTER"],
                                      elem_id="jp-ad-submit")
            with gr.Column(visible=False) as order_group:
                order_box = gr.Textbox(label="Your order: image numbers for top-left, top-right, bottom-left, "
                                             "bottom-right (row by row)", interactive=False, elem_id="jp-order")
                with gr.Row():
                    digits = [gr.Button(str(k), elem_classes=[f"jp-key-{k}", "jp-digit"], min_width=60)
                              for k in range(1, MAX_PIECES + 1)]
                with gr.Column(visible=False) as turn_group:  # the _rot configs: each image's clockwise turn
                    turn_box = gr.Textbox(label="Your rotations: clockwise degrees that turn each placed image "
                                                "upright, in the same order", interactive=False, elem_id="jp-turns")
                    with gr.Row():
                        turns = [gr.Button(f"{r}° ({key})", elem_classes=[f"jp-key-{key}", "jp-turn"], min_width=80)
                                 for r, key in zip(ROTATIONS, "QWER")]
                with gr.Row():
                    undo = gr.Button("Undo (Backspace)", elem_classes=["jp-key-BACKSPACE"], elem_id="jp-undo")
                    clear = gr.Button("Clear", elem_id="jp-clear")
                    og_submit = gr.Button("Submit (Enter)", variant="primary", elem_classes=["jp-key-ENTER"],
                                          elem_id="jp-og-submit")
            message = gr.Markdown(elem_id="jp-message")
        with gr.Column(visible=False) as finished:
            done_md = gr.Markdown(elem_id="jp-done")

        item_outputs = [intro, page, finished, intro_msg, progress, images, question, choice_row, *letters,
                        anomaly_box, judgment, position, etype, order_group, order_box, *digits, turn_group, turn_box,
                        message, done_md, item_state, pid_state]

        def empty_order(n):
            return "[" + ", ".join(["_"] * n) + "]"

        def show(pid, note=""):
            """Every output for ``pid``'s next item (or the end page)."""
            part = test.participant(pid)
            item_id = part.next_item()
            hide = gr.update(visible=False)
            if item_id is None:
                done = (f"### Thank you, {pid}.\n\nAll {part.total} items are answered and saved in "
                        f"`{part.rundir.path}`. You may close this page.")
                return [hide, hide, gr.update(visible=True), "", "", "", "", hide, *[hide] * len(letters), hide,
                        None, None, None, hide, "", *[hide] * len(digits), hide, "", "", done, None, pid]
            config = test.config_of(item_id)
            spec, row = get_spec(config), test.row(item_id)
            n = len(row["images"])
            head = (f"**Item {part.done + 1} of {part.total}** · participant `{pid}` · {spec.title} · "
                    f"{keys_help[spec.kind]}" + (f"  \n{TRANSPARENT_NOTE}" if spec.cut != "straight" else ""))
            return [hide, gr.update(visible=True), hide, "", head, images_html(row, item_id),
                    question_html(row["question"]), gr.update(visible=spec.kind == CHOICE),
                    *[gr.update(visible=spec.kind == CHOICE and k < spec.num_options) for k in range(len(letters))],
                    gr.update(visible=spec.kind == ANOMALY), None,
                    gr.update(value=None, choices=position_choices(*spec.grid)), None,
                    gr.update(visible=spec.kind in (ORDER, ORIENTED)),
                    empty_order(n), *[gr.update(visible=spec.kind in (ORDER, ORIENTED) and k < n)
                                      for k in range(len(digits))],
                    gr.update(visible=spec.kind == ORIENTED), empty_order(n), note, "", item_id, pid]

        def on_start(pid_text):
            try:
                return show(pid_text.strip())
            except UserError as err:
                hide = gr.update()
                return [hide] * 3 + [f"**{err}**"] + [gr.update()] * (len(item_outputs) - 4)

        def answer(pid, item_id, value, rt):
            if not pid or not item_id:
                return show(pid) if pid else [gr.update()] * len(item_outputs)
            try:
                test.participant(pid).record(item_id, value, rt)
            except UserError as err:  # incomplete answer: nothing recorded, the item stays
                return [gr.update()] * (len(item_outputs) - 4) + [f"**{err}**", gr.update(), gr.update(),
                                                                     gr.update()]
            return show(pid)

        start.click(on_start, [pid_box], item_outputs).then(None, js=PAINTED)
        pid_box.submit(on_start, [pid_box], item_outputs).then(None, js=PAINTED)
        for L, button in zip(LETTERS, letters):
            button.click(lambda pid, item, rt, L=L: answer(pid, item, L, rt), [pid_state, item_state,
                         gr.Textbox(visible=False)], item_outputs, js=WITH_TIME).then(None, js=PAINTED)
        ad_submit.click(lambda pid, item, j, p, t, rt: answer(pid, item, (j, p, t), rt),
                        [pid_state, item_state, judgment, position, etype, gr.Textbox(visible=False)], item_outputs,
                        js=WITH_TIME).then(None, js=PAINTED)
        def submit_order(pid, item, order, turned, rt):
            rotated = bool(item) and get_spec(test.config_of(item)).kind == ORIENTED
            return answer(pid, item, (order_numbers(order), order_numbers(turned)) if rotated else
                          order_numbers(order), rt)

        og_submit.click(submit_order, [pid_state, item_state, order_box, turn_box, gr.Textbox(visible=False)],
                        item_outputs,
                        js=WITH_TIME).then(None, js=PAINTED)
        for r, button in zip(ROTATIONS, turns):
            button.click(None, [turn_box], [turn_box], js=f"(o) => window.jpTurnAdd(o, {r})", trigger_mode="multiple")

        for k, button in enumerate(digits, 1):  # the order editor runs in the page: no key press is lost
            button.click(None, [order_box], [order_box], js=f"(o) => window.jpOrderAdd(o, {k})",
                         trigger_mode="multiple")
        # Undo takes back the last turn when there is one, else the last image; Clear empties both.
        undo.click(None, [order_box, turn_box], [order_box, turn_box], trigger_mode="multiple",
                   js="(o, t) => window.jpSlots(t).some(v => v !== '_') ? [o, window.jpOrderUndo(t)] "
                      ": [window.jpOrderUndo(o), t]")
        clear.click(None, [order_box, turn_box], [order_box, turn_box], trigger_mode="multiple",
                    js="(o, t) => [window.jpOrderClear(o), window.jpOrderClear(t)]")
    return demo


def browse_app(datasets: dict):
    """Items with their answers and metadata, filterable by config: ``{config: datasets.Dataset}``."""
    gr = _gr()
    configs = [c for c in CONFIGS if c in datasets] + [c for c in datasets if c not in CONFIGS and is_config(c)]
    index = [(c, i) for c in configs for i in range(len(datasets[c]))]

    def subset(config):
        return [x for x in index if config in (None, "all", x[0])]

    def view(config, k):
        items = subset(config)
        if not items:
            return "no items", "", "", "", "", gr.update(maximum=0, value=0)
        k = max(0, min(int(k or 0), len(items) - 1))
        c, i = items[k]
        row = datasets[c][i]
        opts = "\n".join(f"- {o}" for o in row.get("options") or []) or "(open-ended)"
        answer = f"**Answer:** `{row['answer'].replace(chr(10), ' / ')}`\n\n**Options**\n\n{opts}"
        credit = " · ".join(v for v in (row.get("source_attribution"), row.get("source_license"),
                                        row.get("source_url")) if v)
        fields = json.loads(row["metadata"]) if row.get("metadata") else {}
        meta = "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items()) + "\n}"
        head = f"**{get_spec(c).title}** · item {k + 1} of {len(items)} · `{row['id']}`" + \
               (f"  \nsource: {html.escape(credit)}" if credit else "") + \
               (f"  \n{TRANSPARENT_NOTE}" if get_spec(c).cut != "straight" else "")
        return head, images_html(row, row["id"]), question_html(row["question"]), answer, meta, \
            gr.update(maximum=len(items) - 1, value=k)

    with gr.Blocks(title="Jigsaw-Puzzles: browse") as demo:
        gr.Markdown("## Jigsaw-Puzzles: browse the items (with their answers)")
        with gr.Row():
            config = gr.Dropdown([("all configs", "all")] + [(get_spec(c).title, c) for c in configs], value="all",
                                 label="Config", elem_id="jp-config")
            slider = gr.Slider(0, max(0, len(index) - 1), step=1, value=0, label="Item", elem_id="jp-index")
        with gr.Row():
            prev = gr.Button("Previous", elem_classes=["jp-key-ARROWLEFT"], elem_id="jp-prev")
            nxt = gr.Button("Next", elem_classes=["jp-key-ARROWRIGHT"], elem_id="jp-next")
        head = gr.Markdown(elem_id="jp-head")
        images = gr.HTML(elem_id="jp-images")
        with gr.Row():
            question = gr.HTML(elem_id="jp-question")
            answer = gr.Markdown(elem_id="jp-answer")
        meta = gr.Code(language="json", label="metadata", elem_id="jp-metadata")
        outs = [head, images, question, answer, meta, slider]
        demo.load(view, [config, slider], outs)
        config.change(lambda c: view(c, 0), [config], outs)
        slider.release(view, [config, slider], outs)
        prev.click(lambda c, k: view(c, int(k) - 1), [config, slider], outs)
        nxt.click(lambda c, k: view(c, int(k) + 1), [config, slider], outs)
    return demo
