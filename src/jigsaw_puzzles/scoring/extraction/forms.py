"""The reader's vocabulary, as data: ``forms.tsv`` beside this file, one row per language and kind.

The table is the whole of what the reader knows about wording; the rule (:mod:`.rule`) only asks it questions. A
row may list choices in braces ("{i/we} {went with/opted for}"): each combination is one whole form.
Kinds, and how the rule uses them:

- ``label`` (answer, final answer, Resposta, 答案, 정답...) before a separator (``sep``: ":", "=", "->") or a
  ``copula`` (is, would be, é, 是, は...): "Final answer: B", "The answer is B", "答案是B". A label alone on the line
  above a bare answer introduces it ("Final answer:\\nB").
- ``verb``: a first-person commitment right before the answer ("I choose B", "escolho C", "我选B", "정답은 A").
- ``pred``: what follows an answer and commits to it ("B is correct", "C fits best", "Aです", "A입니다", "B'dir").
- ``open``/``close``: marks that may wrap an answer ("(B)", "**B**", "✅ B", "boxed{B}"); ``noun``: a word that may
  stand between a form and its letter ("the answer is option C", "la C").
- ``filler``: words that may stand before a form without joining anything ("I think the answer is B").
- ``link``: joins reasoning to the commitment that follows ("..., so the answer is B", "所以答案是B");
  ``intro``: opens a reasoning lead-in closed by a comma ("Looking at the edges, the answer is C");
  ``condition``: a link that makes the answer depend on something ("If ..., C"): never read.
- ``withdraw``: withdraws what came before ("wait", "actually", "just kidding", "等等"): only what follows is read;
  ``contrast`` ("but", "however", "looking again") between two commitments lets the later one stand.
- ``explain``: opens an explanation after the answer ("because", "Explanation:", "porque", "因为").
- ``support``: what a sentence that supports the chosen answer says of it ("the sky in C *matches*"); outside English,
  its words of fit. ``describe``: the other words that show a sentence describes the picture, in the languages models
  answer in (what it shows, where, the same, turned or mirrored, its content: "tem o mesmo padrão", "видна", "xoay"),
  counted with ``support`` when an explanation is judged, never as a word of fit.
- ``choice``: words that make another answer named in an explanation chosen, preferred or kept open.
- ``neutral``: remarks that say nothing about the answer ("Hope this helps!", "Confidence: 90%").
- ``residue``: chat-UI residue lines ("Copy  Edit  Share", "👍 👎").
- ``negation``, ``hedge``: never known; the tests draw from them (a negation next to an answer is never read).
- ``subject`` + ``relate``: a sentence that states an option by its own words ("They are adjacent vertically",
  "The patch matches masked area C", "<image 2> comes from area A").
- ``doubt``: a sentence after the answer that disclaims it ("I have no idea", "I picked at random") is no
  explanation; ``convention``: nor, after an order, one that changes how it is numbered ("column by column").
- ``judgment``, ``position``, ``type``: Anomaly Detection's field labels; ``correct``, ``incorrect``, ``rotation``,
  ``mirroring``, ``blank``: the words of its values, in the languages models answer in. ``yes``: a table's cell that
  marks its row, under a header that asks whether it fits ("| C | sí |" under "¿Coincide?").
- ``submit``, ``key``, ``carrier``, ``skip`` (:mod:`.structure`): the names of calls that submit an answer
  (submit_answer, finish), the keys that hold one (answer, choice, order), the keys read inside (arguments,
  content, choices) and the keys that say nothing of it (reason, confidence, usage); any other key abstains.
- ``horizontal``, ``vertical``, ``apart``: Connection Verification's relations (A, B, C) in words ("nebeneinander",
  "上下关系", "không kề nhau"), beside the English ones in :mod:`.answers`.
- ``image``, ``direction``: Connection Verification's images by number in other languages ("изображением 1",
  "图2") and where one lies from the other ("прямо под": below, "左上方": upper left), read only in a sentence that
  opens with one image and names the other (:mod:`.answers`).
- ``place``: Anomaly Detection's tiles by place in other languages ("unten links", "верхний правый", "中央"), read
  with the kinds of change (``rotation``, ``mirroring``) in a sentence that names one tile and one change
  (:mod:`.prose`); ``line``: the words for a row or a column (a centre said beside one is a row's middle, not read).
- ``row``: an order's rows labelled in other languages ("Obere Reihe: 4, 8, 2", "上段：4, 7, 1"), read as the English
  label they stand for (:mod:`.answers`).
- ``candidate``, ``ordinal``: Missing Piece Selection's candidates in other languages ("la primera opción", "4番目の
  候補", "候选3"; :mod:`.answers`).
- ``unsure``: a confidence note standing alone as a clause ("B, but I'm not sure.", "aunque no estoy del todo
  seguro"): blanked, as "Confidence: low" is known; one that scopes over an answer ("not sure it's B") is no clause
  of its own and stays a ``doubt``.
- ``concede``, ``but``: a concession ("although", "aunque", "虽然") or a turn ("but", "pero", "但是") after the
  answer opens a remark, judged as an explanation; a concession of another answer keeps it open ("C, although D fits").
- ``typo``: known misspellings ("teh=the"). A word of five letters or more that is no word of the table, within
  one edit of one English commit word (label, copula, verb, pred: "Fianl", "asnwer"), is read as it; never one
  within an edit of a negation.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

_TABLE = Path(__file__).with_name("forms.tsv")
KINDS = ("sep", "open", "close", "residue", "label", "copula", "verb", "pred", "filler", "link", "intro", "condition",
         "withdraw", "contrast", "explain", "neutral", "negation", "hedge", "noun", "support", "choice", "typo",
         "subject", "relate", "doubt", "convention", "judgment", "position", "type", "correct", "incorrect", "rotation",
         "mirroring", "blank", "content", "submit", "key", "carrier", "skip", "horizontal", "vertical", "apart", "image", "direction", "place", "line", "candidate", "ordinal",
         "row", "unsure", "describe", "yes", "concede", "but", "runner", "draft")


_GROUP = re.compile(r"\{([^{}]*/[^{}]*)\}")


def _expand(form: str) -> list[str]:
    """A form with choices in braces, as every form it stands for: "{i/we} {chose/picked}" is four forms, and an
    empty choice is none ("i{/'d} pick" is "i pick" and "i'd pick")."""
    m = _GROUP.search(form)
    if m is None:
        return [form]
    return [x for c in m.group(1).split("/") for x in _expand(form[:m.start()] + c + form[m.end():])]


@lru_cache(maxsize=1)
def table() -> dict[str, dict[str, tuple[str, ...]]]:
    """{kind: {language: forms}}, case-folded, in the table's order."""
    out: dict[str, dict[str, tuple[str, ...]]] = {k: {} for k in KINDS}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang, kind, forms = line.split("\t")
        if kind not in out:
            raise ValueError(f"forms.tsv: unknown kind {kind!r}")
        items = [" ".join(unicodedata.normalize("NFKC", f).lower().split()) for g in forms.split(" | ")
                 for f in _expand(g)]
        out[kind][lang] = out[kind].get(lang, ()) + tuple(f for f in items if f)
    return out


@lru_cache(maxsize=None)
def forms(kind: str) -> frozenset:
    """Every form of ``kind``, in any language."""
    return frozenset(f for fs in table()[kind].values() for f in fs)


def languages() -> list[str]:
    return sorted({lang for kinds in table().values() for lang in kinds} - {"*"})


# Scripts written without spaces between words: a form there is matched anywhere, elsewhere only as whole words.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af\u3000-\u303f\uff00-\uffef]")


# A word goes on through a combining mark (a Devanagari or Bengali vowel sign, a Hebrew or Arabic point), which
# ``re`` does not count as a word character: "কারণে" is not the word "কারণ".
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0900-\u0963\u0966-\u0dff"
_BEFORE, _AFTER = rf"(?<![^\W_]|[{_MARKS}])", rf"(?![^\W_]|[{_MARKS}])"


def _worded(ch: str) -> bool:
    """A form that starts or ends with ``ch`` matches only as a whole word (a letter of a spaced script, or a mark)."""
    return (ch.isalnum() or "\u0900" <= ch <= "\u0dff" and ch not in "\u0964\u0965") and not _UNSPACED.match(ch)


def alternation(fs, reverse: bool = False, whole: bool = True) -> str:
    """A regex for the forms ``fs`` (``reverse``: for text read right to left), whole words where the script has
    spaces between words (``whole``): one trie per kind of word edge (shared prefixes tried once: a long alternation
    is slow in ``re``), a space matching any white space, the longest form of a trie winning. The regex depends only
    on the set of forms, never on the order a set is iterated in (which changes with ``PYTHONHASHSEED``)."""
    groups: dict[tuple[bool, bool], list[str]] = {}
    for g in sorted({f[::-1] if reverse else f for f in fs if f}):
        groups.setdefault((whole and _worded(g[0]), whole and _worded(g[-1])), []).append(g)
    sets = {k: set(ws) for k, ws in groups.items()}  # a group whose form goes on from another group's tried first:
    ahead = {k: sum(any(w[:i] in sets[o] for w in ws for i in range(1, len(w))) for o in sets if o != k)
             for k, ws in groups.items()}  # "the content in <image 2>" before "<image 2>", the longest winning
    parts = [(_BEFORE if pre else "") + "(?:" + _trie(words) + ")" + (_AFTER if post else "")
             for (pre, post), words in sorted(groups.items(), key=lambda kv: (-ahead[kv[0]], kv[0]))]
    return "(?:" + "|".join(parts) + ")" if parts else "(?!)"


@lru_cache(maxsize=None)
def unshadowed(kinds: tuple, reverse: bool = False) -> str:
    """A guard to stand before an alternation of the ``kinds``' forms (after it, ``reverse``): none of them is matched
    where, in a script without spaces, it ends or opens a longer negation, hedge, condition or doubt ("แต่", "but",
    inside "เว้นแต่", "unless"; "から", "so", inside "分からない"; "从", "from", in "从未", "never"): there it is that
    form's, and what it says is not a link."""
    fs = frozenset().union(*(forms(k) for k in kinds))
    abstain = frozenset().union(*(forms(k) for k in ("negation", "hedge", "condition", "doubt"))) - fs
    heads = sorted({g[:i] for f in fs if f and not _worded(f[0]) for g in abstain
                    for i in [g.find(f, 1)] if i > 0 and not _worded(g[i - 1])})
    starts = "" if reverse else "".join(rf"(?!{re.escape(g)})" for g in sorted(  # nor where it opens one: "从", "from", in
        {g for f in fs if f and not _worded(f[0]) for g in abstain if len(g) > len(f) and g.startswith(f)}))  # "从未", "never"
    return starts + "".join(rf"(?!{re.escape(h[::-1])})" if reverse else rf"(?<!{re.escape(h)})" for h in heads)


def _trie(words: list[str]) -> str:
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [(r"\s+" if ch == " " else re.escape(ch)) + emit(sub) for ch, sub in sorted(node.items()) if ch != ""]
        if "" in node:
            return "(?:" + "|".join(alts) + ")?" if alts else ""
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return emit(root)


#: What stops an offer: an answer (a letter, a number, a list) or a word about changing or doubting one.
_ABOUT_ANSWER = (r"[\d\[]|(?<!')\b(?:(?-i:[A-H])|[b-h])\b|\b(?:chang|switch|reconsider|another|other|instead|pick|choos|swap|"
                 r"different|re(?:do|try|vis|check)|again|wrong|sure|correct|right|verif|doubl")
#: An offer after the answer that names no answer and doubts nothing ("Would you like me to explain why?"): residue on
#: a line of its own, and on the answer's line (:func:`pattern` "offer").
_OFFER = (r"[ \t]*(?:[^\w\s]+[ \t]*)?(?:(?:do you )?want me to|would you like me to|is there anything else|anything else|"
          r"(?:shall|should|can) i (?:explain|walk|show|elaborate|describe|help|go through)|any other questions|need anything else)"
          r"(?:(?!" + _ABOUT_ANSWER + r"))[^\n?.!]){0,120}\?[ \t]*$")


_LET_ME_KNOW = (r"[ \t]*(?:[^\w\s]+[ \t]*)?(?:let me know|feel free to ask) if you(?:'d| would)? (?:like|want|need|have)"
                r"(?:(?!" + _ABOUT_ANSWER + r"|disagree))[^\n?.!]){0,100}[.!]?[ \t]*$")


#: A question about the answer's form only, then the answer on that assumption ("Do you want just the letter? Assuming
#: so: D", "Wollen Sie nur den Buchstaben? Dann: D"): what it assumes changes nothing of the answer.
_FORMAT_ASKED = (r"[ \t]*(?:just to (?:check|confirm)[ \t,\u2014-]*)?(?:do you want|would you like|wollen sie|möchten sie|willst du)"
                 r"(?:(?!\b(?-i:[A-H])\b)[^\n?.!]){0,40}?(?:letter|buchstaben|format|only|just|nur)(?:(?!\b(?-i:[A-H])\b)[^\n?.!0-9]){0,30}\?[ \t]*(?:(?:if so|assuming so|"
                 r"assuming yes|in that case|then|dann|here it is|here you go|i'll give the letter|either way)[ \t]*[:,]?)?")


@lru_cache(maxsize=None)
def _idioms(caveats: bool = False) -> frozenset:
    """The links that open with a condition and set none ("unless i'm mistaken", "si no me equivoco", "如果我没看错",
    "if i had to guess"); ``caveats``: only those that say "if I am not wrong" (a negation in them, or "unless"), known
    after the answer too ("B, unless I'm mistaken"; not "C would be my choice if forced")."""
    cond = re.compile(alternation(forms("condition")), re.I)
    neg = re.compile(alternation(forms("negation")) + r"|^(?:unless|tenzij|除非)", re.I)
    return frozenset(f for f in forms("link") if cond.match(f) and (not caveats or neg.search(f))) | frozenset(
        () if caveats else (f for f in forms("intro") if cond.search(f)))  # "por lo que se ve,": "se" sets nothing there


#: Where a sentence ends, in any script (".", "!", "?", a line break, "。", "！", "？"); a statement ends at a
#: semicolon too. The one splitter the rule's checks share.
_ENDS = ".!?\n\u3002\uff01\uff1f"
SENTENCE_END = re.compile(f"[{_ENDS}]")
STATEMENT_END = re.compile(f"[;\uff1b{_ENDS}]")
SENTENCE = re.compile(f"[^{_ENDS}]+")
STATEMENT = re.compile(f"[^;\uff1b{_ENDS}]+")


def sentence_end(t: str, pos: int, ends: re.Pattern = SENTENCE_END) -> int:
    """Where the sentence (or, with ``STATEMENT_END``, the statement) holding ``t[pos]`` ends: the end of ``t`` if
    nothing ends it."""
    m = ends.search(t, pos)
    return m.start() if m else len(t)


def sentence_start(t: str, pos: int, lo: int = 0) -> int:
    """Where the sentence holding ``t[pos]`` begins, no earlier than ``lo``."""
    return max(lo, max(t.rfind(c, lo, pos) for c in _ENDS) + 1)


_CONJ = re.compile(r"(?:but|though|although|aunque|pero|mas|embora|mais|aber|ma|anche se|но|хотя|але|хоча|ale|choć|maar|men|"
                   r"ama|tapi|tetapi|meskipun|walaupun|nhưng|dù|dar|لكنني|لكن|लेकिन|पर|אבל|αλλά|اما|lakini|لیکن)\s|但|แต่|তবে",
                   re.I)


_BECAUSE = ("because|since|as|porque|pois|ya que|parce que|car|weil|da|perch\u00e9|poich\u00e9|\u043f\u043e\u0442\u043e\u043c\u0443 \u0447\u0442\u043e|"
            "\u0442\u0430\u043a \u043a\u0430\u043a|\u00e7\u00fcnk\u00fc|karena|v\u00ec|bo|omdat|eftersom")  # a reason after a note
_OPTION_AFTER = re.compile(r"(?<![^\W_])[A-H](?![^\W_])")  # "but I'm not sure; C is close": C is what it doubts
_ANSWER_END = re.compile(r"(?:(?<![^\W_])[A-Z]|[\])\d])[*_`'\"]*$")  # a letter, list or number just before


def blank_unsure(t: str) -> str:
    """``t`` with each ``unsure`` note blanked (positions kept) where it is a sentence of its own ("B. I'm not 100%
    sure.") or is joined by "but"/"though" ("B, but I'm not sure", "Cだと思いますが、確信はありません"); not after a
    phrase that says what it is unsure of ("pour la première, je ne suis pas sûr"), nor in a sentence that holds a
    hedge ("A ou C, je ne suis pas sûr": what it is unsure of is left open, and the note is the only sign of it)."""
    if not pattern("unsure").search(t):
        return t
    hedge = pattern("hedge")
    out = list(t)
    for u in pattern("unsure").finditer(t):
        at = len(t[:u.start()].rstrip(" \t"))
        if t[at - 1:at] in (",", ";", "\u2014", "\u2013", "\u3001", "\uff0c") and not _CONJ.search(u.group(0)) and \
                t[at - 2:at - 1] != "\u304c" and not _ANSWER_END.search(t, max(0, at - 40), len(t[:at - 1].rstrip())):  # "が、": "but"; "B — "
            continue  # "for the first one, I'm not sure"; not "B, I'm not sure"
        lo, hi = sentence_start(t, u.start()), sentence_end(t, u.end())
        if not hedge.search(t[lo:u.start()] + " " + t[u.end():hi]) and not _OPTION_AFTER.search(t, u.end(), hi):
            out[u.start():u.end()] = " " * (u.end() - u.start())
    return "".join(out)


def in_note(t: str, at: int) -> bool:
    """``t[at]`` is in a confidence note ("i'm not 100% sure", "no estoy del todo seguro"): a negation there rejects
    nothing."""
    return any(n.start() <= at < n.end() for n in pattern("note").finditer(t, max(0, at - 24), at + 64))


#: When a chat UI says it answered ("2 minutes ago", "Hace 2 minutos", "2分钟前", "2 минуты назад"), as residue.
_AGO = (r"(?:\d{1,3}[ \t]?(?:sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?|days?)[ \t]+ago|(?:hace|h\u00e1|il y a|vor)[ \t]+"
        r"\d{1,3}[ \t]+(?:segundos?|minutos?|horas?|d\u00edas?|dias?|secondes?|minutes?|heures?|jours?|sekunden|minuten|stunden|"
        r"tagen?)|acum[ \t]+\d{1,3}[ \t]+(?:sec|secunde|min|minute|ore|or\u0103|zile)|\d{1,3}[ \t]?(?:\u79d2|\u5206\u949f|\u5206\u9418|\u5206|\u5c0f\u65f6|\u5c0f\u6642|\u6642\u9593|\u5929|\u65e5)\u524d|\d{1,3}[ \t]+(?:"
        r"\u0441\u0435\u043a\u0443\u043d\u0434[\u0430\u0443]?|\u043c\u0438\u043d\u0443\u0442[\u0430\u0443\u044b]?|\u0447\u0430\u0441(?:\u0430|\u043e\u0432)?|\u0434\u043d(?:\u044f|\u0435\u0439)|\u0434\u0435\u043d\u044c)[ \t]+\u043d\u0430\u0437\u0430\u0434)")
#: The user's next turn at the end of a copied chat, naming no answer ("You said:\nthanks, next one\n\nChatGPT said:"): no
#: reply follows it, so it changes nothing the model said.
_NEXT_TURN = (r"^[ \t]*(?:you said|user|you):[ \t]*\n?[ \t]*(?![^\n]*(?<![\w'])(?-i:[A-H])(?![\w']))[^\n\d\[\]]{1,120}(?:\n\s*"
              r"(?:chatgpt|claude|gemini|copilot|assistant|model)(?: said)?:?)?\s*\Z")
_STAT = r"(?:[\d.]+[ \t]?(?:s|sec|ms|\u79d2|\ucd08)|\d{1,6}[ \t]?tokens|[\d.]+[ \t]?tok(?:ens)?/s)"  # "⏱ 3.2s · 47 tokens · 14.6 tok/s"


def _granting() -> frozenset:
    """The concessions that open a lead-in as an introducer does ("Although A looked right at first, the answer is C"):
    none that is also a negation, hedge or condition."""
    return forms("concede") - forms("negation") - forms("hedge") - forms("condition")


_JOINS = ("intro", "link", "withdraw", "contrast", "explain")  # kinds that join or turn: never inside an abstaining form


@lru_cache(maxsize=None)
def pattern(name: str) -> re.Pattern:
    """The compiled patterns the rule asks (see the module docstring for the kinds)."""
    a = alternation
    if name in ("left", "label"):  # read right to left from an answer: marks, a noun, the commit form
        opens, noun = a(forms("open"), True), a(forms("noun"), True)
        label, cop, sep = a(forms("label"), True), a(forms("copula"), True), a(forms("sep"), True)
        verb, fill = a(forms("verb"), True), a(forms("filler") | forms("link"), True)
        subj, rel = a(forms("subject"), True), a(forms("relate"), True)
        head = rf"[ \t]*(?:{opens}[ \t]*)*(?:{noun}[ \t]*(?:{opens}[ \t]*)*)?,?[ \t]*(?:{fill}[ \t]*,?[ \t]*)*"
        if name == "label":  # a label alone ("Answer B", "उत्तर B है"): read only where nothing unknown follows
            return re.compile(rf"{head}{label}", re.I)
        # "Order (top-left, top-right, bottom-left, bottom-right): [4, 1, 3, 2]": only the prompt's own words
        aside = (r"(?:\)\s*(?:(?:(?:thgir|tfel)[\s-]*(?:pot|mottob|reppu|rewol)|elddim|retnec|lanif|wor yb wor)"
                 r"\s*,?\s*)+\(\s*)?")
        bad = a(frozenset(f for k in ("condition", "hedge", "negation") for f in table()[k].get("en", ())), True)
        of = rf"(?:(?:(?!{bad})[^,.;:!?\n]){{1,40}}?\s+(?:fo|rof|ot|ni)\s+)?"  # "the order of the images is", reversed;
        # not "the answer in case image 2 is rotated is B" (a condition, a hedge or a negation in between)
        core = (rf"(?:{sep}\s*{aside}(?:{cop}\s*)?{label}|(?:{sep}\s*)?{cop}\s*{of}{label}|{rel}\s*(?:{fill}\s*)?{subj}"
                rf"|(?:{sep}\s*)?{verb})")  # "the patch corresponds to A": subject and verb before a verb alone
        return re.compile(head + core, re.I)
    if name == "unsure":  # only where a clause opens, and only up to where it ends
        return re.compile(r"(?:(?<=[,;\u2014\u2013\u3001\uff0c])|(?<=[.!?\u3002\uff01]\s)|(?<=[.!?\u3002\uff01])|^|"
                          rf"(?<=[^\W_]|[*)\]])(?=[ \t]+(?:{_CONJ.pattern})))[ \t]*"  # "C although I'm not sure": no comma
                          rf"{a(forms('unsure'))}(?=[ \t]*(?:[.!,;)\u3002\uff0c\uff01]|$)|[ \t]+(?:{_BECAUSE})(?![^\W_]))", re.I | re.M)
    if name == "note":  # a confidence note wherever it stands ("i'm not 100% sure", "no estoy del todo seguro")
        return re.compile(a(forms("unsure")), re.I)
    if name == "unfinished":  # a text cut off after a commit form, before its answer ("so the answer would be")
        label, cop = a(forms("label"), True), a(forms("copula"), True)
        return re.compile(rf"{cop}\s*{label}(?![^\W_])", re.I)
    if name == "strip":  # fillers, links, withdrawals and restated forms, read right to left from a commit form
        lab, cop, sep = a(forms("label"), True), a(forms("copula"), True), a(forms("sep"), True)
        joins = a(forms('link') | forms('withdraw') - forms('negation') | forms('contrast'), True)
        return re.compile(rf"[\s,:;\u2014\u2013\u3001\uff0c\u060c.-]*(?:({joins}){unshadowed(('link', 'withdraw', 'contrast'), True)}"
                          rf"|{a(forms('filler'), True)}|(?:{sep}|{cop})\s*{lab})", re.I)
    if name == "label_line":  # a line that introduces the bare answer below it ("Final answer:", "**Answer**")
        lead = a(forms("filler") | forms("link"))
        return re.compile(rf"[\s\-*#>\u2022]*(?:{lead}[\s,]*)*(?:{a(forms('label'))}|{a(forms('verb'))})"
                          rf"(?:\s*{a(forms('copula'))})?\s*(?:{a(forms('sep'))}|\(s\))?\s*", re.I)
    if name == "pred":
        return re.compile(rf"[ \t]*{a(forms('pred'))}", re.I)
    if name == "close":
        return re.compile(rf"(?:[ \t]*{a(forms('close'))})*", re.I)
    if name in ("intro", "condition", "explain", "withdraw", "link", "hedge", "negation", "support", "choice",
                "describe", "contrast", "doubt", "convention", "subject", "relate", "content", "horizontal", "vertical", "apart",
                "image", "rotation", "mirroring", "line", "candidate", "correct", "incorrect"):
        fs = forms(name) | (forms("withdraw") - forms("negation") | _granting() if name == "intro" else frozenset())
        guard = unshadowed((name,) + (("withdraw",) if name == "intro" else ())) if name in _JOINS else ""
        return re.compile(guard + a(fs), re.I)
    if name == "fillers":  # a run of fillers and links ("i'm fairly confident", "so, honestly")
        return re.compile(rf"(?:{a(forms('filler') | forms('link'))}[\s,.!]*)+", re.I)
    if name == "idiom":
        return re.compile(a(_idioms()), re.I)
    if name == "relation":  # any of Connection Verification's relations, in one alternation
        return re.compile(a(forms("horizontal") | forms("vertical") | forms("apart")), re.I)
    if name in ("direction", "place", "ordinal", "row"):
        return re.compile(a(values(name)), re.I)
    if name == "neutral":  # "of": Dutch "or"; an idiom ("unless i'm mistaken") is known after the answer too
        return re.compile(a(forms("neutral") - forms("hedge") - forms("negation") | _idioms(caveats=True)), re.I)
    if name == "offer":  # an offer after the answer on its line ("C. Would you like me to explain why?")
        return re.compile(r"(?:^|(?<=[.!\u2014] ))(?:" + _OFFER + "|" + _FORMAT_ASKED + "|" + _LET_ME_KNOW + ")", re.I | re.M)
    if name == "residue":
        r = a(forms("residue"))
        w = "answer|wrong|not?|actually|ignore|disregard|guess|idea|sure|kidding|joke|wait|mistake|option|choice"  # a note
        return re.compile(rf"{_NEXT_TURN}|^[ \t]*sources?[ \t]*:[ \t]*(?:\n[ \t]*)?\d{{1,2}}[.)](?:(?!\b(?:[a-h]|{w})\b)[^\n\[\]\d])+"
                          rf"(?:\n[ \t]*\d{{1,2}}[.)](?:(?!\b(?:[a-h]|{w})\b)[^\n\[\]\d])+)*[ \t]*$|"
                          rf"^[ \t]*related[ \t]*(?:\n[ \t]*(?:\n[ \t]*)?[^\n]{{3,120}}\?[ \t]*)+$"
                          rf"|^[ \t]*(?:\d{{1,2}}[ \t]+)?(?:sources?|learn more|references?)[ \t]*:?[ \t]*(?:none|n/a|-|\u2014|"
                          rf"\d{{1,2}}[.)][^\n]*(?:https?:|www\.|\.(?:com|org|net|edu|io|gov)\b|/wiki/)[^\n]*)?[ \t]*$"
                          rf"(?:\n[ \t]*(?:\d{{1,2}}[.)]|[-\u2022*\u00b7]|\[\d{{1,2}}\]|https?:)[^\n]*(?:https?:|www\.|\.(?:com|org|net|edu|io|gov)"
                          rf"\b|\u2013|\u2014| - )[^\n]*)*"
                          rf"|^[ \t]*(?:\[\d{{1,2}}:\d{{2}}(?:[ \t]?[ap]m)?\][ \t]*)?(?:{r}|{_AGO}|(?:today|yesterday)[ \t]at[ \t]?\d{{1,2}}:\d{{2}}(?:[ \t]?[ap]m)?|\d{{1,6}}[ \t]views?)(?:[ \t:|\u00b7\u2022\u2014]*(?:{r}|\d{{1,3}} sources?|[\U0001f44d\U0001f44e\u2764][ \t]?\d{{1,3}}|{_AGO}|[\d.]+[ \t]?s|\d{{1,6}}[ \t](?:tokens|views?)|(?:(?:today|yesterday)[ \t]at[ \t]?)?(?:오전|오후|午前|午後|[ap]m)?[ \t]?\d{{1,2}}:\d{{2}}(?:[ \t]?[ap]m)?))*[ \t:.\u25bc\u25be\u25b8]*$|^[ \t]*https?://(?:chatgpt\.com|chat\.openai\.com|g\.co|gemini\.google\.com|claude\.ai)/share/\S+[ \t]*$|^[ \t]*(?:\u2192|->|\u2022|-)"
                          rf"[^\n]{{3,120}}\?[ \t]*$|^[ \t]*(?:thought|reasoned|thinking) for (?:a few |\d+ ?)?(?:seconds?|s|minutes?|m)[ \t]*[\u25b8\u203a>\u25be\u02c5\u2304\u25bc]?[ \t]*$"
                          rf"|^[ \t]*model:[ \t]*[\w.:-]+/[\w./:-]+[ \t]*$|^[ \t]*generated in [\d.]+[ \t]?(?:s|sec|seconds?)[ \t]*$"
                          rf"|^[ \t]*you've (?:reached|hit) (?:your|the) [^\n]{{0,40}}limit[^\n]*$|^[ \t]*\d+(?:\.\d+)?[ \t]?s[ \t]*$"
                          rf"|^[ \t]*thinking completed[^\n]{{0,24}}$|^[ \t]*\d+[ \t]*\n[ \t]*of[ \t]*\n[ \t]*\d+[ \t]*\n[ \t]*responses?[ \t]*$"
                          rf"|^[ \t]*[\u2022\-*][^\n]{{3,100}}[ \t][\u2014\u2013-][ \t]*[\w.-]+\.(?:org|com|net|edu|io|gov|ai)[ \t]*$"
                          rf"|^[ \t]*(?![^\n]*(?<![\w'])(?-i:[A-H])(?![\w']))[^\n\d]{{3,80}}[ \t][\u2014\u2013-][ \t]wikipedia[ \t]*$|^[ \t]*(?:[a-z0-9-]+\.)+(?:org|com|net|edu|io|gov|ai)[ \t]*$"
                          rf"|^[ \t]*:[a-z0-9_+-]+:[ \t]*\d{{0,3}}[ \t]*$|^[ \t]*<?[ \t]*\d{{1,2}}[ \t]*/[ \t]*\d{{1,2}}[ \t]*>?[ \t]*$"
                          rf"|^[ \t]*(?:(?:오전|오후|午前|午後|上午|下午)[ \t]?)?\d{{1,2}}:\d{{2}}(?:[ \t]?(?:[ap]\.?m\.?|ص|م))?(?:[ \t:|\u00b7\u2022]+{r})*[ \t]*$"
                          rf"|^[ \t]*\((?:edited|bearbeitet|modifié|editado|modificato|изменено|编辑过|已编辑)\)[ \t]*$"
                          rf"|^[ \t]*[\u2013\u2014-][ \t]*\d{{1,4}}[ \t]*[\u2013\u2014-][ \t]*$|^[ \t]*page[ \t]\d{{1,4}}(?:[ \t]of[ \t]\d{{1,4}})?[ \t]*$"
                          rf"|^[ \t]*[\w.-]+[ \t]\(to[ \t][\w.-]+\):[ \t]*$"
                          rf"|^[ \t]*[^\n]{{1,40}}[ \t]+APP[ \t]+\d{{1,2}}:\d{{2}}(?:[ \t]?[AP]M)?[ \t]*$"
                          rf"|^[ \t]*已深度思考[ \t]*\(用时[ \t]*\d+[ \t]*秒\)[ \t]*$"
                          rf"|^[ \t]*\d+ of \d+ (?:responses?|drafts?)[ \t]*$|^[ \t]*\[?\d{{1,2}}:\d{{2}}(?:[ \t]?[ap]m)?\]?[ \t]*$"
                          rf"|^[ \t]*(?:plaintext|python|json|yaml|text|markdown|bash|javascript)[ \t]*\n(?=[ \t]*copy(?: code)?[ \t]*$)"
                          rf"|^[ \t]*(?:chatgpt|gpt-?4o?|gpt-?[45](?:\.\d)?|4o|o[134](?:-mini)?|claude|gemini|qwen|llama|mistral|deepseek|grok|"
                          rf"copilot|internvl|llava)(?:[ \t\-.]?(?:\d[\w.]*|vl|instruct|chat|pro|flash|thinking|sonnet|opus|haiku|mini|"
                          rf"turbo|preview|experimental|exp|max|plus|lite|ultra|nano|v\d[\w.]*|app|bot)){{0,6}}(?:[ \t]*[\u00b7\u2022|]?[ \t]*(?:[\d.]+[ \t]?s|"
                          rf"\d{{1,2}}:\d{{2}}(?:[ \t]?[ap]m)?))?[ \t]*$"  # "Claude 3.5 Sonnet   10:42 AM"
                          rf"|^[ \t]*[\u2014\u2013-]?[ \t]*generated (?:by|with)[ \t]+(?![^\n]*(?<![\w'])(?-i:[A-H])(?![\w']))[\w.\-/]{{2,40}}"
                          rf"(?:[ \t]*[\u00b7\u2022|,][ \t]*{_STAT})*[ \t]*$"  # "— Generated by InternVL3-78B · 1.4 s · 312 tokens"
                          rf"|^[ \t]*(?:\u23f1\ufe0f?[ \t]*)?{_STAT}(?:[ \t]*[\u00b7\u2022|,][ \t]*(?:{_STAT}|(?:\U0001f5d1\ufe0f?[ \t]*)?{r}))*[ \t]*$"
                          r"|^" + _OFFER,
                          re.I | re.M)
    raise KeyError(name)


@lru_cache(maxsize=None)
def values(kind: str) -> dict[str, str]:
    """{phrase: what it says} of a kind written "phrase=value": ``typo`` ("teh": "the"), ``ordinal`` ("tercera": "3"),
    ``place`` ("unten links": "bottom left"), ``direction`` ("links von": "left", "左上方": "upper left")."""
    return dict(f.rsplit("=", 1) for f in forms(kind))


def value(kind: str, said: str) -> str:
    """What a phrase of ``kind`` matched in a text says ("Unten  Links": "bottom left")."""
    return values(kind)[" ".join(said.lower().split())]


@lru_cache(maxsize=1)
def _commit_words() -> tuple[frozenset, frozenset]:
    words = {w for k in ("label", "copula", "verb", "pred", "noun") for f in table()[k].get("en", ())
             for w in f.split(" ") if len(w) >= 5 and w.isalpha()}  # English only: "takie" is no typo of "takže"
    return frozenset(words), frozenset(w for f in forms("negation") for w in f.split(" "))


@lru_cache(maxsize=1)
def _all_words() -> frozenset:
    """Every word of the table: a known word ("looking") is never read as a typo of another ("locking")."""
    return frozenset(w.casefold() for k in KINDS if k != "typo" for f in forms(k) for w in f.split(" "))


def _edits1(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by one insertion, deletion, substitution or transposition."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    if len(a) < len(b):
        a, b = b, a
    return any(a[:i] + a[i + 1:] == b for i in range(len(a)))


@lru_cache(maxsize=4096)
def corrected(word: str) -> str:
    """``word`` as the commit word it misspells ("fianl" -> "final", "teh" -> "the"), else ``word``: the typo table,
    or one edit from an English commit word or option noun of 5+ letters (the typed word of 5+ letters too, never near a
    negation, never a plural or singular of it)."""
    low = word.lower()
    fixed = values("typo").get(low)
    if fixed is not None:
        return fixed
    known, negations = _commit_words()
    if len(low) < 5 or low in known or low in _all_words() or any(_edits1(low, n) or low == n for n in negations if len(n) >= 3):
        return word
    hits = {w for w in known if _edits1(low, w) and low not in (w + "s", w[:-1])}  # "layouts" is no typo of "layout"
    return next(iter(hits)) if len(hits) == 1 else word


__all__ = ["table", "forms", "languages", "pattern", "alternation", "corrected", "values", "value", "KINDS"]
