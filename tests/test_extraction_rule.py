"""The reading rule (issue #27 section 1): one thing; the last word; letter and text agree; the recall list.
Every row of #27's table gets the careful grader's verdict; the strict reader reads only the exact format."""
import pytest

from jigsaw_puzzles.scoring.extraction import PARSED, classify_response
from jigsaw_puzzles.scoring.score import score

PLH, CV, OG = "piece_localization_hard", "connection_verification", "order_generation"
PLE, MPSH = "piece_localization_easy", "missing_piece_selection_hard"
CV8, MPS6 = "connection_verification_3x3_8dir", "missing_piece_selection_easy_3x3_k6"

# (text, config, the careful grader's verdict: the one answer, or None)
ISSUE_27 = [
    ("Answer: B\nAlternative answer: D", PLH, None),
    ("Answer: anything but B", PLH, None),
    ("All but B.", PLH, None),
    ("B is unlikely.", PLH, None),
    ("Hardly B.", PLH, None),
    ("Answer: B (wrong)", PLH, None),
    ("Answer: B and D", PLH, None),
    ("B & C", PLH, None),
    ("B+C", PLH, None),
    # #43: after a withdrawal the new statement is read by the rule (an introducer, "clearly", "region D")
    ("The answer is B.\nWait, that's wrong. Looking again at the seam, it is clearly region D.", PLH, "D"),
    ("The answer is B.\nWait, that's wrong. It is clearly D.", PLH, "D"),
    ("The answer is B. Note: D is also plausible.", PLH, None),
    ("Answer: C. The two images are adjacent horizontally.", CV, None),
    ("E (lower left)", CV8, None),
    ("I first tried [2, 3, 1, 4] but the seams do not match.", OG, None),
]
RULE = [
    # the last word: a withdrawal is re-read; what follows must be clean and final
    ("A... wait, actually C", PLH, "C"),
    ("[2, 3, 1, 4]. Actually no, it is [3, 2, 1, 4]", OG, "[3, 2, 1, 4]"),
    ("The answer is B. Wait, that's wrong.", PLH, None),
    ("The answer is B. If not B then D.", PLH, None),
    ("Answer: B. I am 60% confident; D is my second guess.", PLH, None),
    ("The answer is [2, 3, 1, 4]. [1, 2, 3, 4] is also possible.", OG, None),
    ("Judgment: A\nError Position:\nError Type:\nOr maybe Judgment: B\nError Position: A\nError Type: A",
     "anomaly_detection", None),
    ("Answer: B?", PLH, None),
    ("Answer: C. It is adjacent vertically.", CV, None),
    # explanations that only mention other options keep nothing open
    ("Final answer: A\nExplanation: option B shows sky and option C shows sand.", CV, "A"),
    ("[3, 1, 4, 2]\nHere images 1, 2, 3, 4 are the pieces in the order they were given.", OG, "[3, 1, 4, 2]"),
    # recall where the text says one thing
    ("It is not A; it is C.", PLH, "C"),
    ("C, not A", PLH, "C"),
    ("A: wrong\nB: wrong\nC: correct\nD: wrong", PLH, "C"),
    ('{"answer": "B"}', PLH, "B"),
    ("答案是B", PLH, "B"),
    ("Candidate 5", MPS6, "E"),
    ("lower left", CV8, "H"),
    ("E (upper right)", CV8, "E"),
    ("答案是2 3 1 4", OG, "[2, 3, 1, 4]"),
    # orders written row by row (a nested list, a markdown grid, "Row k:" lines) when they make one permutation
    ("[[2, 3], [1, 4]]", OG, "[2, 3, 1, 4]"),
    ("Answer: [[2, 3, 1], [4, 6, 5]]", "order_generation_2x3", "[2, 3, 1, 4, 6, 5]"),
    ("The grid:\n| 2 | 3 |\n|---|---|\n| 1 | 4 |", OG, "[2, 3, 1, 4]"),
    ("Row 1: 2 3\nRow 2: 1 4", OG, "[2, 3, 1, 4]"),
    ("[[2, 3], [1, 4]] or [[1, 2], [3, 4]]", OG, None),
    ("Maybe [1, 2, 3, 4].\n| 2 | 3 |\n| 1 | 4 |", OG, None),
    ("Row 1: 2 3\nRow 2: 1 3", OG, None),
    # a one-row markdown order and another order joined to it (found by the generated suite on random seeds)
    ("I compare.\n\n| 2 | 1 | 3 | and 1 3 2", "order_generation_1x3", None),
    ("It cannot be [3, 1, 2]. | 2 | 1 | 3 | + [3 1 2]", "order_generation_1x3", None),
    # another answer ruled out beside the answer, in the languages that say it so (#43, session 2026-11-29)
    ("Cevap C, B değil.", PLH, "C"),
    ("پاسخ A است، نه B.", PLH, "A"),
    ("A가 아니라 C입니다.", PLH, "C"),
    ("Không phải B mà là D.", PLH, "D"),
    ("答案不是C，而是A。", PLH, "A"),
    ("答案是C，不是B。C的天空颜色和空白区域上方一致。", PLH, "C"),
    ("Not A and not C, but B.", PLH, "B"),
    ("Не A и не C, а B.", PLH, "B"),
    ("Cevap C değil, A.", PLH, "A"),
    # ... and the other side: the answer itself ruled out, or what is left unsaid
    ("Cevap C değil.", PLH, None),
    ("정답은 C가 아닙니다.", PLH, None),
    ("答案不是C。", PLH, None),
    ("Not A and B.", PLH, None),
    ("The answer is not B, C.", PLH, None),
    ("The answer is C, B değil mi?", PLH, None),
    ("C, B is correct.", PLH, None),
    # a lower-case "a" after a commit form only where the text ends on it, closed, or where it is the whole (short) text
    ("i choose a.", "connection_verification", "A"),
    ("i choose a", "connection_verification", "A"),
    ("the answer is a", "piece_localization_easy", "A"),
    ("Hmm, looking at the seam once more, I think the answer is a", "connection_verification", None),  # cut off?
    ("I'd pick a good one.", "connection_verification", None),
    ("D (certainty: 3/10)", PLH, "D"),
    ("Answer: <del>B</del> <ins>D</ins>", PLH, "D"),
    # a consequence drawn after the answer explains it; another answer drawn as one is a second answer
    ("The answer is B, so C is ruled out.", PLH, "B"),
    ("My choice is A, so the patch doesn't come from B.", PLH, "A"),
    ("The answer is B, so C.", PLH, None),
    ("The answer is B, so maybe C.", PLH, None),
    ("The answer is B, so I have no idea.", PLH, None),
    ("<image 2> is directly below <image 1>, so C.", CV8, None),
    # another option granted a feature with "also"/"too", then rejected in its sentence; a word of fit keeps it open
    ("C\n\nThe sky in C matches the gradient above the blank. B also has sky, but its clouds stop abruptly.", PLH, "C"),
    ("C. D has sky too, but the roof is wrong.", PLH, "C"),
    ("C. D also fits, but I'm not 100% sure.", PLH, None),
    ("C. D has sky too, but maybe it fits.", PLH, None),
    # an explanation after the answer in another language: a word of fit said of the answer
    ("התשובה היא D. החלק מתאים לשקע באזור D.", PLH, "D"),
    ("Resposta: C. A peça C encaixa no telhado.", PLH, "C"),
    ("Resposta: C. A peça C encaixa, mas D também encaixa.", PLH, None),
    ("Die Antwort ist B. B passt, aber C passt auch.", PLH, None),
    # a value ruled out in an anomaly field; regions named before an order, abbreviated or in prose
    ("Judgment: not A.", "anomaly_detection", None),
    ("Judgment: B\nError Position: not C\nError Type: A", "anomaly_detection", None),
    ("TL: 2, TR: 1, BL: 3, BR: 4 → [2, 1, 4, 3]", OG, None),
    ("TL: 2, TR: 1, BL: 4, BR: 3 → [2, 1, 4, 3]", OG, "[2, 1, 4, 3]"),
    ("Image 2 has the top-left corner, image 1 is the lower-left part and image 3 the lower right.\n\n[2, 4, 3, 1]", OG,
     None),
    # "Looking at the options:" opens a walk through them; a place label alone is a place, not a commitment
    ("Looking at the options:\nC", PLH, None),
    ("Final answer:\nC", PLH, "C"),
    ("Thought: Now mask D.", PLH, None),
    ("The patch has a blue tint. Region C", PLH, None),
    ("Region C", PLH, "C"),
    ("Region: C", PLH, "C"),
    # a note after an order that may renumber it must be in known words
    ("Order: [2, 1, 3, 4]\nNote: each number is the position that image goes to.", OG, None),
    ("Order: [2, 1, 3, 4]\nNote: each number is an image index.", OG, "[2, 1, 3, 4]"),
    ("[3, 2, 4, 1]\n\nNote: the transparent edges were ignored when matching.", OG, "[3, 2, 4, 1]"),
    # the relation said in the explanation must be the answer's
    ("A, because image 2 continues directly below image 1.", "connection_verification", None),
    ("B, because image 2 continues directly below image 1.", "connection_verification", "B"),
    # an option list echoed, then the answer; a longer negation wins ("Ce n'est pas" whole)
    ("A. Candidate 1 (the second input image)\nB. Candidate 2 (the third input image)\n"
     "C. Candidate 3 (the fourth input image)\nD. Candidate 4 (the fifth input image)\n\nAnswer: C", PLH, "C"),
    ("Ce n'est pas C, c'est B.", PLH, "B"),
    # fillers of mild confidence and subjunctive copulas in other languages; confidence said in words
    ("Я думаю, что ответ — С, потому что линия крыши продолжается.", PLH, "C"),
    ("Penso che la risposta sia B.", PLH, "B"),
    ("Fairly sure it's option B (≈80%).", PLH, "B"),
    ("I'm fairly sure it's C — maybe 80%.", PLH, "C"),
    ("I'm fairly sure it's C — maybe D.", PLH, None),
    ("[4, 3, 2, 1] (low confidence, maybe 40%)", OG, "[4, 3, 2, 1]"),
    # chat-UI residue pasted after the answer
    ("D\n\nShare\nExport\nRewrite\n\nPerplexity Pro · 3 sources", PLH, "D"),
    ("A\n\nSources: 1. wikipedia.org/wiki/Jigsaw_puzzle\nWas this helpful?", PLH, "A"),
    # agents: a ReAct submission is read, a tool's input never is; an action object that submits
    ('Action: crop\nAction Input: {"image": 1, "mask": "A"}\nObservation: sky\nAction: submit\nAction Input: D', PLH, "D"),
    ('Action: submit_answer\nAction Input: {"answer": "A"}\nObservation: Answer recorded.', PLH, "A"),
    ('Action: crop\nAction Input: {"image": 1, "mask": "A"}\nObservation: sky', PLH, None),
    ('{"action": "submit", "value": "A"}', PLH, "A"),
    ('{"action": "zoom", "value": "A"}', PLH, None),
    # code: a comment is not said, a name reassigned keeps its last value, an anomaly's fields combine
    ("```python\n# answer = 'A'\nanswer = 'D'\n```", PLH, "D"),
    ("```python\nanswer = 'B'\n# B's mask is too high\nanswer = 'D'\n```", PLH, "D"),
    ("```python\nanswer = 'B'\nfinal = 'D'\n```", PLH, None),
    ("```python\njudgment = 'B'\nerror_position = 'A'\nerror_type = 'B'\n```", "anomaly_detection",
     "Judgment: B\nError Position: A\nError Type: B"),
    # a ranking gives its best option when the text says which end is best
    ("Ranking: C > A > B > D", PLH, "C"),
    ("Ranking (worst to best): D < B < A < C", PLH, "C"),
    ("Ranking: C, A, B, D", PLH, None),
    ("Ranking (best to worst): C < A", PLH, None),
    # the prompt echoed back is not the model's words
    ('Question: <image 1> has two masked areas labeled A and B. <image 2> shows the content from one masked area. '
     'Determine if it corresponds to A or B. Answer only "A" or "B".\nB', "piece_localization_easy", "B"),
    ('Determine if it corresponds to A or B. Answer only "A" or "B".', "piece_localization_easy", None),
    # candidates by their words; an anomaly's type said in Japanese, with full-width brackets
    ("it's the third one, C.", "missing_piece_selection_easy", "C"),
    ("it's the third one, B.", "missing_piece_selection_easy", None),
    ("The last candidate patch is the one.", "missing_piece_selection_easy", "D"),
    ("判定：B\n誤り位置：D\n誤りの種類：B（鏡像反転）", "anomaly_detection", "Judgment: B\nError Position: D\nError Type: B"),
    ("判定：B\n誤り位置：D\n誤りの種類：A（鏡像反転）", "anomaly_detection", None),
    # "If I had to pick, B" is an idiom, not a condition; withdrawals and new answers in more languages
    ("If I had to pick, B.", PLH, "B"),
    ("If the sky is on top, B.", PLH, None),
    ("答案：D。等等，我看错了，应该是B。", PLH, "B"),
    ("Odpowiedź: A. Chwila, jednak nie — to jest D.", PLH, "D"),
    ("C. Actually, C is right after all.", PLH, "C"),
    # alternatives joined after the answer; a call commented out; a YAML comment beside the answer; a sequence
    ("a.\nCandidate 1 or 2", "missing_piece_selection_easy", None),
    ("b.\ncandidate 1/2", "missing_piece_selection_easy", None),
    ('# submit("B")', PLH, None),
    ("# Answer: B", PLH, "B"),
    ("```yaml\nanswer: C  # not sure, could be B\n```", PLH, None),
    ("Region C is where I'd look first, then B — the brick pattern should be compared.", PLH, None),
    ("Thought: water.\nAction: Final Answer\nAction Input: A", PLH, "A"),
    ("A. The two images are adjacent horizontally (left-right relationship)\nB. The two images are adjacent "
     "vertically (top-bottom relationship)\nC. The two images are not adjacent in the original image\n\nB", CV, "B"),
    ("A. sky\nB. sand", PLH, None),
    # Anomaly Detection as one state per sub-image: every cell said, at most one changed, in known words
    ("Top-left: OK\nTop-right: OK\nBottom-left: rotated 90°\nBottom-right: OK", "anomaly_detection",
     "Judgment: B\nError Position: C\nError Type: A"),
    ("| Position | Status |\n|---|---|\n| Top-left | normal |\n| Top-right | normal |\n| Bottom-left | normal |\n"
     "| Bottom-right | normal |", "anomaly_detection", "Judgment: A\nError Position:\nError Type:"),
    ("| Sub-image | Status |\n|---|---|\n| A | normal |\n| B | normal |\n| C | mirrored (?) |\n| D | normal |",
     "anomaly_detection", None),
    ("Top-left: OK\nTop-right: mirrored\nBottom-left: rotated 90°\nBottom-right: OK", "anomaly_detection", None),
    ("Top-left: OK\nTop-right: OK\nBottom-left: rotated 90° counterclockwise\nBottom-right: OK", "anomaly_detection",
     None),
    ("Top-left: OK\nTop-right: OK\nBottom-left: rotated", "anomaly_detection", None),
    # regions said beside an order (rows, corners, "TL: 2", Chinese) must agree with it, as must the two images'
    # corners with a Connection Verification answer
    ("Top row: 1 and 3. Bottom row: 4 and 2.\n[1, 4, 3, 2]", OG, None),
    ("Top row: 1 and 4. Bottom row: 3 and 2.\n[1, 4, 3, 2]", OG, "[1, 4, 3, 2]"),
    ("左上：图2，右上：图1，左下：图4，右下：图3\n答案：[2, 1, 3, 4]", OG, None),
    ("左上：图2，右上：图1，左下：图3，右下：图4\n答案：[2, 1, 3, 4]", OG, "[2, 1, 3, 4]"),
    ("Image 3 has the spire, so it is the top-left. Image 1 has the clouds, top-right. Image 4 has the entrance, "
     "bottom-left. Image 2 has the square, bottom-right.\n\nSo the order is [3, 1, 2, 4].", OG, None),
    ("The top-left corner of image 3 shows sky. [3, 1, 2, 4]", OG, "[3, 1, 2, 4]"),
    # a numbered list of places under an order's label; turns with no unit; a block's fields after arrows
    ("The correct order is:\n1. Image 3\n2. Image 4\n3. Image 2\n4. Image 1", OG, "[3, 4, 2, 1]"),
    ("The correct order is:\n1. Image 3\n3. Image 4\n2. Image 2\n4. Image 1", OG, None),
    ("Ranking of the images:\n1. Image 3\n2. Image 4\n3. Image 2\n4. Image 1", OG, None),
    ("The correct order is:\n1. Image 3\n2. Image 4\n3. Image 2\n4. Image 1\n\nOr maybe [4, 3, 2, 1].", OG, None),
    ("2(0) 3(90) 1(270) 4(180)", "order_generation_2x2_rot", "[(2, 0), (3, 90), (1, 270), (4, 180)]"),
    ("2(0) 3(90) 1(270) 4(180) or maybe 3(0) 2(90) 1(270) 4(180)", "order_generation_2x2_rot", None),
    ("2(0) 3(45) 1(270) 4(180)", "order_generation_2x2_rot", None),
    ("Judgment \u2192 B\nError Position \u2192 B (top-right)\nError Type \u2192 A (rotation, 90\u00b0)", "anomaly_detection",
     "Judgment: B\nError Position: B\nError Type: A"),
    ("Judgment \u2192 B\nError Position \u2192 B\nError Type \u2192 not A", "anomaly_detection", None),
    # a forced answer after a refusal; a German self-correction; chat-app lines around the answer
    ("I don't have access to the images, so I can't be sure. If I had to answer anyway: B.", PLE, "B"),
    ("I don't have access to the images. If I had to answer anyway: B or C.", PLE, None),
    ("Die Antwort ist B. Moment \u2013 nein, bei B passt die Farbe des Himmels nicht. Ich korrigiere mich: C.", MPSH, "C"),
    ("Die Antwort ist B. Moment \u2013 nein, bei B passt die Farbe des Himmels nicht. Ich korrigiere mich.", MPSH, None),
    ("ChatGPT said:\nB\n\n4o mini\nYou've hit the Free plan limit for GPT-4o.", PLH, "B"),
    ("Thought for 23 seconds \u02c5\n\nA\n\nShare\nCopy link\nReport", PLH, "A"),
    ("Thought for 23 seconds \u02c5\n\nA\n\nNo wait, not A.", PLH, None),
    ("Ang tamang pagkakasunod ay [2, 3, 1, 4] \u2014 nasa larawan 2 at 3 ang langit.", OG, "[2, 3, 1, 4]"),
    ("Ang tamang pagkakasunod ay hindi [2, 3, 1, 4].", OG, None),
    ("\uc815\ub2f5\uc740 B\uc785\ub2c8\ub2e4. \uccab \ubc88\uc9f8 \uc870\uac01\uc758 \ub3cc\uae30\uac00 \ub450 \ubc88\uc9f8 "
     "\uc870\uac01\uc758 \ud648\uacfc \ub9de\ubb3c\ub9bd\ub2c8\ub2e4.", "connection_verification_tabs", "B"),  # fits: read
    ("\uc815\ub2f5\uc740 B\uc785\ub2c8\ub2e4. \uccab \ubc88\uc9f8 \uc870\uac01\uc758 \ub3cc\uae30\uac00 \ub450 \ubc88\uc9f8 "
     "\uc870\uac01\uc758 \ud648\uacfc \ub9de\ubb3c\ub9ac\uc9c0 \uc54a\uc2b5\ub2c8\ub2e4.", "connection_verification_tabs", None),
    # rows said with "images ... and ..."; a list cut off at the very end of the text (not by a length limit)
    ("Top row: images 1 and 4. Bottom row: images 3 and 2.", OG, "[1, 4, 3, 2]"),
    ("Top row: images 1 and 4. Bottom row: images 3 or 2.", OG, None),
    ("Top row: images 1 and 4. Bottom row: images 3 and 2.\nAnswer: [1, 4, 2, 3]", OG, None),
    ("answer: [3,1,4,2", OG, "[3, 1, 4, 2]"), ("The answer is [3,1,2", OG, None),
    ("The answer is [2, 4, 1, 3]. Or maybe [3,1", OG, None),
    ('{"choices": [{"message": {"role": "assistant", "content": "[3, 4, 1, 2"}, "finish_reason": "length"}]}', OG, None),
    ('{"choices": [{"message": {"role": "assistant", "content": "[3, 4, 1, 2]"}, "finish_reason": "length"}]}', OG,
     "[3, 4, 1, 2]"),
    # chat-app lines around the answer: drafts, sources, timings; a forced letter after a refusal; a closing note
    ("Gemini\n\nC\n\nShow drafts\n\U0001f50a\n\nSources and related content\nJigsaw puzzle - Wikipedia\nen.wikipedia.org",
     MPSH, "C"),
    ("C\n\nNot C - Wikipedia", MPSH, None),
    ("Qwen2.5-VL-72B-Instruct\n\nC\n\n\u23f1 4.2s \u00b7 38 tokens\nCopy | Retry | Like | Dislike", MPSH, "C"),
    ("I can't see the images. If I have to give a letter anyway, I'll say C.", MPSH, "C"),
    ("I can't see the images. If I have to give a letter anyway, I'd say C or D.", MPSH, None),
    ("C. Not very confident in this one, though.", MPSH, "C"), ("C. Not very confident in C, D is as likely.", MPSH, None),
    ("\u041e\u0442\u0432\u0435\u0442: C. \u042d\u0442\u0438 \u0434\u0432\u0430 \u0444\u0440\u0430\u0433\u043c\u0435\u043d\u0442\u0430 "
     "\u043d\u0435 \u0441\u043e\u043f\u0440\u0438\u043a\u0430\u0441\u0430\u044e\u0442\u0441\u044f.", CV, "C"),  # "do not touch"
    ("\u041e\u0442\u0432\u0435\u0442: A. \u042d\u0442\u0438 \u0434\u0432\u0430 \u0444\u0440\u0430\u0433\u043c\u0435\u043d\u0442\u0430 "
     "\u043d\u0435 \u0441\u043e\u043f\u0440\u0438\u043a\u0430\u0441\u0430\u044e\u0442\u0441\u044f.", CV, None),
    ("Sure! The answer is **B**.\n\nLearn more:\n1. bing.com\n2. wikipedia.org\n\n1 of 30 responses", CV, "B"),
    ("Sources:\n1. jigsaw-benchmark-answers.pdf \u2014 \"Answer: B\"\n\nWas this helpful?", CV, None),
    ("B\n\nShare\nCopy link\n\nqwen2.5-vl-72b-instruct \u00b7 2.1s", CV, "B"),
    # an explanation in Hindi, Swahili, Persian that names the answer (or the piece) and a word of fit
    ("\u0909\u0924\u094d\u0924\u0930: D. \u0928\u0940\u0932\u0940 \u0928\u093e\u0935 \u0915\u093e \u0939\u093f\u0938\u094d\u0938\u093e "
     "\u0915\u0947\u0935\u0932 \u0915\u094d\u0937\u0947\u0924\u094d\u0930 D \u092e\u0947\u0902 \u0939\u0940 \u0920\u0940\u0915 "
     "\u092c\u0948\u0920\u0924\u093e \u0939\u0948\u0964", PLH, "D"),
    ("\u0909\u0924\u094d\u0924\u0930: D. \u0928\u0940\u0932\u0940 \u0928\u093e\u0935 \u0915\u093e \u0939\u093f\u0938\u094d\u0938\u093e "
     "\u0915\u0947\u0935\u0932 \u0915\u094d\u0937\u0947\u0924\u094d\u0930 C \u092e\u0947\u0902 \u0939\u0940 \u0920\u0940\u0915 "
     "\u092c\u0948\u0920\u0924\u093e \u0939\u0948\u0964", PLH, None),
    ("Jibu ni A. Kipande hiki kinaonyesha sehemu ya juu kushoto ya picha, yenye paa jekundu.", PLH, "A"),
    # rows as dashed runs between slashes; the last placement's own description in brackets
    ("7-3-1 / 9-5-2 / 4-8-6", "order_generation_3x3", "[7, 3, 1, 9, 5, 2, 4, 8, 6]"),
    ("7-3-1 / 9-5-2", "order_generation_3x3", None), ("2-4 / 1-3 or maybe 4-2 / 3-1", OG, None),
    ("Top-left: image 2 (sun over the hills)\nTop-right: image 3 (the kite)\nBottom-left: image 4 (the fence)\n"
     "Bottom-right: image 1 (the dog on the grass)", OG, "[2, 3, 4, 1]"),
    ("Top-left: image 2 (sun)\nTop-right: image 3\nBottom-left: image 4\nBottom-right: image 1 (or maybe 4)", OG, None),
    ("Top-left: image 2 (sun)\nTop-right: image 3\nBottom-left: image 4\nBottom-right: image 1 (not sure)", OG, None),
    # whose content matches: the piece's
    ("The transparent corners make it hard to judge, but the piece's content matches region C.", PLH, "C"),
    ("The piece's content does not match region C.", PLH, None),
    # a row given its images in any order, in a sentence: they must be that row's images
    ("The answer is [2, 1, 4, 3]. The sky shows in images 3 and 4, so they form the top row.", OG, None),
    ("The answer is [2, 1, 4, 3]. The sky shows in images 1 and 2, so they form the top row.", OG, "[2, 1, 4, 3]"),
    ("\u7b54\u3048\u306f [2, 1, 4, 3] \u3067\u3059\u3002\u7a7a\u304c\u753b\u50cf3\u3068\u753b\u50cf4\u306b\u5199\u3063\u3066"
     "\u3044\u308b\u305f\u3081\u3001\u4e0a\u6bb5\u306b\u306a\u308a\u307e\u3059\u3002", OG, None),  # \u4e0a\u6bb5: top row
    ("\u7b54\u3048\u306f [2, 1, 4, 3] \u3067\u3059\u3002\u7a7a\u304c\u753b\u50cf2\u3068\u753b\u50cf1\u306b\u5199\u3063\u3066"
     "\u3044\u308b\u305f\u3081\u3001\u4e0a\u6bb5\u306b\u306a\u308a\u307e\u3059\u3002", OG, "[2, 1, 4, 3]"),
    ("Images 3 and 4 form the bottom row.\n[2, 1, 4, 3]", OG, "[2, 1, 4, 3]"),
    ("Images 1 and 4 form the bottom row.\n[2, 1, 4, 3]", OG, None),
    # a column too, and where one image lies from another ("it": the one image named before it in its sentence)
    ("Image 3 has the top of the tower. Image 2 shows its base, so it goes directly below image 3. Images 1 and 4 are "
     "the right half.\n\n[3, 2, 1, 4]", OG, None),
    ("Image 3 has the top of the tower. Image 2 shows its base, so it goes directly below image 3. Images 1 and 4 are "
     "the right half.\n\n[3, 1, 2, 4]", OG, "[3, 1, 2, 4]"),
    ("Images 1 and 2 are the right half.\n[3, 1, 2, 4]", OG, None),
    ("Image 4 is to the right of image 2.\n[3, 1, 2, 4]", OG, "[3, 1, 2, 4]"),
    ("Image 1 is to the left of image 3.\n[3, 1, 2, 4]", OG, None),
    ("Image 1 is not to the left of image 3.\n[3, 1, 2, 4]", OG, "[3, 1, 2, 4]"),
    ("[9, 4, 1, 6, 2, 8, 3, 7, 5]\nImage 6 sits directly below image 9, and image 3 below image 6.", "order_generation_3x3",
     "[9, 4, 1, 6, 2, 8, 3, 7, 5]"),
    ("[9, 4, 1, 6, 2, 8, 3, 7, 5]\nImage 2 sits directly below image 9.", "order_generation_3x3", None),
    # what is not a row's images: a negation, a number said twice, an image's own edge, numbers not said together
    ("The answer is [2, 4, 1, 3]. Image 2 continues the sky from image 1, so it goes in the top row.", OG, "[2, 4, 1, 3]"),
    ("Images 3 and 4 cannot form the top row.\n[2, 1, 4, 3]", OG, "[2, 1, 4, 3]"),
    ("[9, 4, 1, 6, 2, 8, 3, 7, 5]\n\nI checked the middle row because 2 and 8 both have trees, but only 2 has smoke.",
     "order_generation_3x3", "[9, 4, 1, 6, 2, 8, 3, 7, 5]"),
    ("Image 1 is the top-left quadrant and image 2 is the bottom-right one. Answer: B", CV, None),
    ("Image 1 is the top-left quadrant and image 2 is the bottom-left one. Answer: B", CV, "B"),
    # doubt after the answer in more languages; a YAML key given twice; ranks as lines
    ("Answer: B — لا، هذا خطأ. لست متأكدًا من الإجابة.", CV, None),
    ("Urutan yang benar: [1, 4, 2, 3] — eh, bukan, saya tidak yakin.", OG, None),
    ("```yaml\nanswer: B\nanswer: D\n```", PLH, None),
    ("1st (tie): D\n1st (tie): B\n3rd: A\n4th: C", PLH, None),
    ("1st: D\n2nd: B\n3rd: A\n4th: C", PLH, "D"),
    ("Mảnh dưới bên phải bị lật gương.\n\nJudgment: A\nError Position:\nError Type:", "anomaly_detection", None),
    ("Everything lines up except the top-left tile, which is rotated 90°.\nJudgment: A\nError Position:\nError Type:",
     "anomaly_detection", None),
    ("No piece is rotated or mirrored.\n\nJudgment: A\nError Position:\nError Type:", "anomaly_detection",
     "Judgment: A\nError Position:\nError Type:"),
    # a word goes on through a combining mark: "কারণে" is not the word "কারণ"
    ("Option B কারণে \nReasoning: the texture continues and the edges line up.", "missing_piece_selection_easy_3x3_k6",
     None),
    # a structure's anomaly position of two letters is no answer (it crashed once)
    ("```yaml\njudgment: B\nerror_position: AB\nerror_type: A\n```", "anomaly_detection", None),
    ("```yaml\njudgment: B\nerror_type: A\n```", "anomaly_detection", None),
]

AD, OG3 = "anomaly_detection", "order_generation_3x3"
#: Third session of #43, from dev_11/dev_12 (read to tune); each shape with its other side.
SCOPE_3 = [
    # commit forms composed in the table ("{i/we}{'d/ would/...} {go with/opt for/...}"), and what stays unknown
    ("I went with B.", PLH, "B"), ("I opted for C.", PLH, "C"), ("I'm going to go with A.", PLH, "A"),
    ("I'd have to go with D.", PLH, "D"), ("C would be my choice.", PLH, "C"), ("C seems right.", PLH, "C"),
    ("Here's my attempt: B", PLH, "B"), ("Everything points to C.", PLH, "C"), ("Real answer: C", PLH, "C"),
    ("Likely:\nB", PLH, "B"), ("I almost chose C.", PLH, None), ("I initially went with C.", PLH, None),
    ("I wouldn't go with C.", PLH, None), ("I'm not going to go with C.", PLH, None), ("C seems wrong.", PLH, None),
    ("This doesn't point to C.", PLH, None), ("C would be my choice if forced.", PLH, None),
    ("I said B before and I stand by it.", PLH, None),
    # the last clause of a lead-in introduces the answer; a lead-in that states another answer still does not
    ("The crops are blurry, but from what I can make out, the answer is A.", PLH, "A"),
    ("A fits the sky, but looking at the road, the answer is C.", PLH, None),
    # Connection Verification said of the images, in English and Chinese
    ("They don't touch.", CV, "C"), ("They do not touch at all.", CV, "C"), ("两张图左右相邻。", CV, "A"),
    ("它们上下相邻。", CV, "B"), ("它们不是左右相邻。", CV, None), ("They don't touch?", CV, None),
    # where a Piece Localization mask lies, beside its letter
    ("The masked area is C, the bottom left.", PLH, "C"), ("Final answer: B (the lower one).", PLH, "B"),
    ("The answer is B, the top-left or A.", PLH, None),
    # rows said beside an order must agree with it
    ("Top row: 4, 9, 2. Middle row: 3, 5, 7. Bottom row: 8, 1, 6.\n[4, 9, 2, 3, 5, 7, 8, 6, 1]", OG3, None),
    ("Top row: 4, 9, 2. Middle row: 3, 5, 7. Bottom row: 8, 1, 6.\n[4, 9, 2, 3, 5, 7, 8, 1, 6]", OG3,
     "[4, 9, 2, 3, 5, 7, 8, 1, 6]"),
    ("Top row: 1 (sky), 5 (bird), 7 (sky).\nMiddle row: 3, 8, 2.\nBottom row: 9, 4, 6.\n\nFinal: [1, 5, 7, 3, 8, 2, 9, 6, 4]",
     OG3, None),
    ("Row 1 has the sky: 4 has the dome, 8 the left sky. Order left to right: 8, 4, 1.\nSo: [8, 4, 1, 6, 2, 9, 3, 7, 5]",
     OG3, "[8, 4, 1, 6, 2, 9, 3, 7, 5]"),
    # the reasoning of a closed <think> block concluding another answer
    ("<think>The patch shows the bench, so the answer is A.</think>\n\nB", PLH, None),
    ("<think>The patch shows the bench, so the answer is B.</think>\n\nB", PLH, "B"),
    # structures: one-line ReAct actions, a message with its tool call, <submit>, keys that list what was considered
    ("Action: finish[A]", PLH, "A"), ("Action: zoom[A]", PLH, None), ("<submit>D</submit>", PLH, "D"),
    ('{"role": "assistant", "content": "Submitting my answer now.", "tool_calls": [{"id": "c1", "type": "function", '
     '"function": {"name": "submit_answer", "arguments": "{\\"answer\\": \\"B\\"}"}}]}', PLH, "B"),
    ('{"answer": "D", "options_considered": ["A", "B", "C", "D"]}', PLH, "D"),
    ('<tool_call>{"name": "report_anomaly", "arguments": {"judgment": "B", "error_position": "D", "error_type": "B"}}'
     '</tool_call>', AD, "Judgment: B\nError Position: D\nError Type: B"),
    ("Judgment: A?", AD, None),
    # chat-UI residue: model names, notices, "N of M responses", a code block's language before "Copy code"
    ("Qwen2.5-VL-72B-Instruct\n\n[1, 4, 3, 2]\n\n📋 🔄 👍 👎", OG, "[1, 4, 3, 2]"),
    ("**Answer:** C\n\n*Please note: I may make mistakes. Double-check important information.*", PLH, "C"),
    ("plaintext\nCopy code\n[2, 3, 4, 1]", OG, "[2, 3, 4, 1]"), ("Claude says\nB", PLH, None),
    # the answer said again after it; confidence about itself; an anomaly explanation that reopens the judgment
    ("The answer is E. E", CV8, "E"), ("The answer is E. F", CV8, None),
    ("I'd say B, though I'm not 100% sure.", PLH, "B"), ("B, though I'm not sure.", PLH, "B"),
    ("B, though I'm not sure it is.", PLH, None),
    ("B. I double-checked the seams.", PLH, "B"),
    ("Judgment: B\nError Position: D\nError Type: B\nThough it might be correct after all.", AD, None),
    ("정답은 B가 아닙니다. C입니다.", PLH, "C"), ("順番は［２, ４, １, ３］です。", OG, "[2, 4, 1, 3]"),
    # a remark after ":" or a dash, in any language; an option's own line ("A: 0.45") is none
    ("Răspunsul corect este C: cele două imagini nu sunt adiacente.", CV, "C"), ("A: 0.45, B: 0.45, C: 0.10", CV, None),
    ("Answer: C: or maybe B.", CV, None), ("C: just kidding.", CV, None),
    ("The ripples are pronounced, which suggests A — though I'm only moderately confident.", PLH, "A"),
    # the answer opening the text, then a remark: a place label, the option's words
    ("Region B (top-right) — the patch contains the gutter.", PLH, "B"), ("Region B — the sky; Region C — the road.", PLH, None),
    ("Region B (or C) — the sky.", PLH, None), ("Region C is sky.", PLH, None),
    ("One sits directly on top of the other: the bottom of the first crop shows the table edge.", CV, "B"),
    ("They are side by side — the fence runs across.", CV, "A"), ("They are side by side — or stacked.", CV, None),
    # Connection Verification from the two images' corners, said last
    ("Image 1 is the top-left region and image 2 is the top-right region of the original photo.", CV, "A"),
    ("Image 1 looks like the top-left quarter (sky) and image 2 the bottom-right quarter (the driveway).", CV, "C"),
    ("Image 1 is the top-left region or maybe image 2 is the bottom-left one.", CV, None),
    ("If image 1 is the top-left region, image 2 is the bottom-left one.", CV, None),
    ("I don't see any reversed text, flipped objects, or tiles that are upside down.\n\nJudgment: A\nError Position:\n"
     "Error Type:", AD, "Judgment: A\nError Position:\nError Type:"),
    # from dev_13: an order said before an Order Restoration letter, a thought before a submission, rows in a think block
    ("<think>Row 1: 2 6 9. Row 2: 4 1 3. Row 3: 7 5 8.</think><answer>[2, 6, 9, 4, 1, 3, 8, 5, 7]</answer>", OG3, None),
    ("<think>Row 1: 2 6 9. Row 2: 4 1 3. Row 3: 8 5 7.</think><answer>[2, 6, 9, 4, 1, 3, 8, 5, 7]</answer>", OG3,
     "[2, 6, 9, 4, 1, 3, 8, 5, 7]"),
    ("**Row 1:** 3, 9, 1 — sky\n**Row 2:** 6, 2, 8 — sail\n**Row 3:** 4, 7, 5 — hull\n\n**[3, 9, 1, 6, 2, 8, 4, 5, 7]**",
     OG3, None),
    ("A. Then again, the shadow in A is slightly off, so maybe not.", PLH, None),
    ("<think>Region C has the red door.<answer>C</answer></think>", PLH, "C"), ("<think>So C.</think>", PLH, None),
    ('{"tool": "submit", "args": {"order": [3, 4, 1, 2]}}', OG, "[3, 4, 1, 2]"),
    ('{"tool": "zoom", "args": {"order": [3, 4, 1, 2]}}', OG, None), ('Step 4: submit("B")', PLH, "B"),
    ("两张图片是上下相邻的关系，答案选B。", CV, "B"), ("天空在A里，答案是B。", CV, None), ("如果天空在上面，答案是B。", CV, None),
    ("我不确定，答案是B。", CV, "B"), ("我不确定答案是B。", CV, None), ("So the patch corresponds to A.", PLH, "A"), ("D is the better fit.", PLH, "D"),
    ("A (the one over the lake).", PLH, "A"), ("Region B (top-right). The patch shows the chimney.", PLH, "B"),
    ("Region D. Region C shows the sky.", PLH, None),
    ("A\n\nWant me to explain how I figured that out?", PLH, "A"), ("A\n\nWould you like me to explain why B is wrong?", PLH, None),
    ("Corners by flat edges:\n- Piece 1: flat bottom, flat left → bottom-left\n- Piece 2: flat top, flat right → top-right\n"
     "- Piece 3: flat bottom, flat right → bottom-right\n- Piece 4: flat top, flat left → top-left\n\n[4, 2, 1, 3]", OG,
     "[4, 2, 1, 3]"),
    ("- Piece 1 → bottom-left\n- Piece 2 → top-right\n- Piece 3 → bottom-right\n- Piece 4 → top-left\n\n[4, 2, 3, 1]", OG, None),
    # from dev_14: a second assistant turn with no one between gives a second answer; chat residue in Chinese
    ("A<|im_end|>\n<|im_start|>assistant\nB", PLH, None),
    ("A<|im_end|>\n<|im_start|>user\nAre you sure?<|im_end|>\n<|im_start|>assistant\nB", PLH, "B"),
    ("DeepSeek-V3\n\n已深度思考（用时 14 秒）\n\nD\n\n内容由 AI 生成，请仔细甄别", PLH, "D"),
    ("None of the pieces is rotated.", AD, None), ("None of the pieces is rotated or mirrored.", AD, "Judgment: A\nError Position:\nError Type:"),
    ("The bottom-right sub-image appears to be mirrored horizontally; the rest of the picture is fine.", AD,
     "Judgment: B\nError Position: D\nError Type: B"),
    # a letter ending the text after a sentence that names no other answer; "probably" in more languages
    ("The road continues across the join. A", PLH, "A"), ("A has a knob on the left, so it is out. B", PLH, None),
    ("Ranking:\n1. A / C (tie)\n2. B\n3. D", PLH, None), ("Svar: troligen C", MPS6, "C"),
    ("Svar: troligen inte C", MPS6, None), ("Die Antwort ist wahrscheinlich nicht C.", PLH, None),
    ('{"name": "answer", "arguments": "{\\"direction\\": \\"F\\"}"}', CV8, "F"),
    # the same block said twice (small models repeat); two blocks that differ; chat-UI controls after the answer
    ("Judgment: B\nError Position: A\nError Type: A\nJudgment: B\nError Position: A\nError Type: A", AD,
     "Judgment: B\nError Position: A\nError Type: A"),
    ("Judgment: B\nError Position: A\nError Type: A\nJudgment: B\nError Position: C\nError Type: A", AD, None),
    ("Answer: C\n\nShow drafts ▾\nDraft 1  Draft 2  Draft 3\n\n🔊  ⋮", PLH, "C"),
    ("B\n\nShare · Export · Rewrite\nA+  A-   Aa", PLH, "B"),
    # a remark after a dash or colon that opens by judging the answer out; one that supports it is read
    ("C – no", PLH, None), ("C — wrong.", PLH, None), ("Answer: C — not a match", PLH, None), ("C: unlikely", PLH, None),
    ("A – plausible\nB – plausible\nC – no\nD – no", PLH, None), ("C — ✗", PLH, None),
    ("Answer: C — no doubt about it", PLH, "C"), ("A — not 100% sure, but the leaf vein continues only at A.", PLH, "A"),
    ("C — the others do not fit", PLH, "C"),
    # a text cut off after a commit form, before its answer: what it was about to say is not known
    ("Bottom row: 3, 1\nTop row: 4, 2", OG, "[4, 2, 3, 1]"), ("Top row: 4, 2\nTop row: 3, 1", OG, None),  # by label
    ("Row 2: 7 -> 2 -> 4\nRow 1: 5 -> 1 -> 9\nRow 3: 3 -> 8 -> 6", OG3, "[5, 1, 9, 7, 2, 4, 3, 8, 6]"),
    ('{"candidates": [{"content": {"parts": [{"text": "[2, 1, 4, 3]"}, {"text": " is a guess; I could not tell."}]}}]}',
     OG, None),  # a message's text parts are read as one text
    ('{"content": [{"type": "text", "text": "Looking at the seams, "}, {"type": "text", "text": "the answer is B."}]}',
     PLH, "B"),
    # more shapes of the fourth session's dev files, each beside what stays unread
    ("**Answer:** B (probablement)", PLH, "B"), ("B (probablement pas)", PLH, None), ("Je choisis la zone B.", PLH, "B"),
    ("it's just A.", PLH, "A"), ("It's not just A.", PLH, None), ("答案：【Ｄ】", PLH, "D"),
    ("The answer is D.【4:0†source】", PLH, "D"), ("Gemini\nB\nShare & export\nModified response", PLH, "B"),
    ("(image 3, rotation 90), (image 1, rotation 0), (image 4, rotation 180), (image 2, rotation 0)",
     "order_generation_2x2_rot", "[(3, 90), (1, 0), (4, 180), (2, 0)]"),
    ("\\boxed{[(1, 90^\\circ), (2, 0^\\circ), (3, 180^\\circ), (4, 270^\\circ)]}", "order_generation_2x2_rot",
     "[(1, 90), (2, 0), (3, 180), (4, 270)]"),
    ('[{"image": 1, "rotation": 180}, {"image": 3, "rotation": 0}, {"image": 2, "rotation": 90}, {"image": 4, '
     '"rotation": 270}]', "order_generation_2x2_rot", "[(1, 180), (3, 0), (2, 90), (4, 270)]"),
    ("| | left | right |\n|---|---|---|\n| top | 4 | 1 |\n| bottom | 3 | 2 |", OG, "[4, 1, 3, 2]"),
    ("| | right | left |\n|---|---|---|\n| top | 4 | 1 |\n| bottom | 3 | 2 |", OG, None),  # columns reversed
    ("best: C, second: A", PLH, "C"), ("Answer: D. Runner-up: B.", PLH, "D"), ("Top-1: D\nTop-2: B\nTop-3: A", PLH, "D"),
    ("Runner-up: B", PLH, None), ("second: A, best: C", PLH, None), ("Answer: C. Second: maybe A", PLH, None),
    ("candidate 2 also has sky but no sun.", MPS6, None),  # a sentence about a candidate, not an answer with a remark
    ("So the answer is E.\n\nDouble-checking: candidate 2 also has sky but no sun.", MPS6, "E"),
    ("It belongs to D.\n\nTo confirm, the other areas:\n- A: no metal\n- B: tiled wall\n- C:", PLH, "D"),  # cut off
    ("Row 1: 1, 2, 3\nRow 2: 4, 5, 6\nRow 3: 7, 8, 9\n\nThis is the reading order of regions, not my answer.", OG3, None),
    ("assistant\nA<|eot_id|>assistant\nC<|eot_id|>", PLH, None), ("assistant\nA<|eot_id|>", PLH, "A"),  # two turns
    # a remark that opens by judging the answer out, against one that explains it or withdraws it
    ("C — no edge continues across.", CV, "C"), ("**Réponse :** C — aucun bord ne se prolonge d'une image à l'autre.", CV, "C"),
    ("They are adjacent horizontally — no wait, they're not adjacent at all.", CV, "C"), ("C — não.", PLH, None),
    # a server-sent-event stream pasted as it came: its deltas are one text
    ('data: {"choices":[{"delta":{"content":"C"}}]}\n\ndata: [DONE]', PLH, "C"),
    ('data: {"delta":"The two crops"}\ndata: {"delta":" are not adjacent:"}\ndata: {"delta":" C"}\ndata: [DONE]', CV, "C"),
    ('event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"not B"}}',
     PLH, None),
    # harness captures: more turn headers and end-of-turn tokens; a Chinese sentence said of the patch
    ("GPT4 Correct Assistant: [1, 3, 4, 2]<|end_of_turn|>", OG, "[1, 3, 4, 2]"), ("[ASSISTANT]: A</s>", CV, "A"),
    ("GPT4 Correct User: which?<|end_of_turn|>GPT4 Correct Assistant: B<|end_of_turn|>", CV, "B"),
    ("[gMASK]<sop><|assistant|>\nCandidate 3<|user|>", "missing_piece_selection_easy_tabs", "C"),
    ("该图片对应区域D。", PLH, "D"), ("该图片不对应区域D。", PLH, None), ("region B (top-right)", PLH, "B"),
    ("Now mask D.", PLH, None), ("Urteil: A\nFehlerposition:\nFehlertyp:", AD, "Judgment: A\nError Position:\nError Type:"),
    ("**Réponse :** C\n\nLe candidat 3 a les bons tenons et la même texture de feuillage.", MPS6, "C"),
    ("Answer: C. Le candidat 2 est meilleur.", MPS6, None), ("Je choisis le candidat 3.", MPS6, "C"),
    ("Judgment: B\nError Position: D\nError Type: A\n\nThough I should note that a rotation and a mirror can be hard to "
     "tell apart.", AD, "Judgment: B\nError Position: D\nError Type: A"),
    ("Answer: B\n\nI should note that I am not sure.", CV, None),
    ("C\n\nCandidate 1 is the dog's tail, Candidate 2 is grass and Candidate 4 a piece of the fence.", MPS6, "C"),
    ("Het antwoord is C, of misschien B.", MPS6, None),  # Dutch "of" is "or"; English "a piece of the" is not
    ("[2, 1, 4, 3]\n\nTL = 2 (kite), TR = 1 (sun), BL = 4 (dog), BR = 3 (blanket).", OG, "[2, 1, 4, 3]"),  # said again
    ("[2, 1, 4, 3]\n\nTL = 2 (kite), TR = 1 (sun), BL = 3 (dog), BR = 4 (blanket).", OG, None),
    ("[(3, 180), (1, 0), (4, 270), (2, 90)]\n\nAll rotations are clockwise.", "order_generation_2x2_rot",
     "[(3, 180), (1, 0), (4, 270), (2, 90)]"),
    ("[(3, 180), (1, 0), (4, 270), (2, 90)]\n\nAll rotations are counterclockwise.", "order_generation_2x2_rot", None),
    ("[1, 4, 3, 2]\n\nHere's how I determined it:\n1. Image 1 has the sky.", OG, "[1, 4, 3, 2]"),
    # regions said clause by clause, each with its image as the subject; a rotation said as "upside down" is 180
    ("Image 2 has the top-left corner of the building, image 4 continues the roof to the right, image 1 is the "
     "lower-left part of the street and image 3 the lower right.\n\n[2, 4, 3, 1]", OG, None),
    ("Image 2 has the top-left corner of the building, image 4 continues the roof to the right, image 1 is the "
     "lower-left part of the street and image 3 the lower right.\n\n[2, 4, 1, 3]", OG, "[2, 4, 1, 3]"),
    ("Top-left: image 1 rotated 90°; top-right: image 3 upright; bottom-left: image 4 upside down; bottom-right: image 2 "
     "needs 270°.\n\n[(1, 90), (3, 0), (4, 0), (2, 270)]", "order_generation_2x2_rot", None),
    # misreads an adversarial dev file found (dev_19), each beside the reading that stays
    ("All four tiles look right.\n\nJudgment: B\nError Position: A\nError Type: A", AD, None),
    ("All four tiles look right.\n\nJudgment: A\nError Position:\nError Type:", AD, "Judgment: A\nError Position:\nError Type:"),
    ("B\n(Revoking this — it was wrong.)", PLH, None), ("% [(4, 0), (3, 90), (2, 0), (1, 180)]", "order_generation_2x2_rot", None),
    ("F\n\nNota: scelta casuale, nessuna immagine ricevuta.", MPS6, None), ("Answer: B\n50% sure", CV, "B"),
    ("Sure, let's go with A, since apparently sky belongs at the bottom now.", PLH, None),
    ("[4, 3, 1, 2]. Wait, I think the top two should be swapped: [3, 4, 1, 2].", OG, "[3, 4, 1, 2]"),
    # a description set off after the subject is skipped; one that names an option, negates or hedges is read
    ("The patch (a green umbrella and part of a café table) corresponds to area B.", PLH, "B"),
    ("The piece, with its tab sticking out on the left, fits the masked area labelled D in image 1.", PLH, "D"),
    ("The patch, with option C close, fits area D.", PLH, None), ("The patch, with its tab maybe on the left, fits area D.", PLH, None),
    ("The patch (a green umbrella) does not correspond to area B.", PLH, None),
    ("Based on the fact that one crop is ceiling, with nothing continuing between them, C.", CV, "C"),
    ("This content was cut out of the masked region labelled D.", PLH, "D"), ("This content was not cut out of area B.", PLH, None),
    ("I'd say dee. Yeah, dee.", PLH, "D"), ("B. Yeah, maybe C.", PLH, None),  # the answer said again, in known words
    # chat turns written as plain text, and more chat-UI residue
    ("User: which?\nAssistant: B", CV, "B"), ("Assistant: A\nUser: are you sure?\nAssistant: Yes, C.", CV, "C"),
    ("ChatGPT said:\nB\nYou said:\nare you sure?\nChatGPT said:\nSorry, it is D.", PLH, "D"),
    ("B\n\nYou said:\nnext one", CV, "B"),
    ("Answer\nC\nSources\n• jigsaw-puzzles benchmark — arxiv.org\nRelated\nHow do vision models solve jigsaw puzzles?",
     PLH, "C"),
    ("GPT Bot  APP  3:15 PM\nB\n:+1: 1", CV, "B"), ("Qwen2.5-Max\nB\nThinking completed · 2.1s", CV, "B"),
    ("The images are adjacent horizontally, so the answer is A.\n\n1\nof\n30\nresponses", CV, "A"),
    ("Candidate 2 fills the blank: the lamp post continues.", "missing_piece_selection_hard", "B"),  # a remark after
    ("B is correct: maybe C.", PLH, None), ("[10:42 AM] Assistant: [2, 3, 4, 1]\n[10:42 AM] You: ok", OG, "[2, 3, 4, 1]"),
    ("ترتیب درست: [2, 1, 4, 3]", OG, "[2, 1, 4, 3]"),
    ("Let me look.\n\n ég {\"answer\": \"D\"}", CV8, None), ("resposta é c", PLH, "C"),  # a letter inside a word is none
    ("They are likely vertically adjacent, so the answer would be", CV, None),
    ("The answer is A. The answer is A. The answer is", PLH, None), ("Answer: A\nAlternative answer: option E", CV8, None),
    ("option, uh... option ay", PLH, "A"),  # a letter that is also a copula (Romanian "e", Tagalog "ay") ends nothing ("The answer is C. Wait, actually the answer is", PLH, None),
    # session 5: one span read two ways; page numbers and agent-framework residue; a label ending a line of reasoning;
    # an explanation that names the other kind of change
    ("C.\n\nOnce again: the answer is B, not adjacent.", "connection_verification_tabs", None),
    ("Answer: A or\n\n  - 3 -\n\nB", PLH, None), ("so the answer is\n\n\u2014 12 \u2014\n\nB.", CV, "B"),
    ("Code:\n```py\nfinal_answer(\"D\")\n```<end_code>", PLH, "D"), ("Final Answer: C\n\n> Finished chain.", PLH, "C"),
    ("ANSWER: B\n\nuser_proxy (to vision_agent):\n\nTERMINATE", CV, "B"), ("<answer>F</answer>\n<think>", MPS6, "F"),
    ("Ancak sa\u011f alttaki par\u00e7a ters duruyor. Cevab\u0131m:\nD", PLH, "D"),
    ("The seam fits. The answer is not:\nD", PLH, None), ("Some of it fits. Maybe:\nD", PLH, None),
    ("In the required format:\nB", PLH, "B"), ("Final line: B", PLH, "B"), ("Answer (repeated): B", PLH, "B"),
    ("Judgment: B\nError Position: A\nError Type: A\n\nSo again: the top-left piece is mirrored, not rotated.", 'anomaly_detection', None),
    ("Judgment: B\nError Position: C\nError Type: B\n\nThe text reads backwards: a flip rather than a rotation.", 'anomaly_detection',
     "Judgment: B\nError Position: C\nError Type: B"),
    ("Judgment: B\nError Position: C\nError Type: B\n\nA rotation would look similar, but the text is reversed.", 'anomaly_detection',
     "Judgment: B\nError Position: C\nError Type: B"),
    # an anomaly said in prose with "everything else is fine"; "nothing is turned or flipped, so ... correct" is none
    ("Row 3, column 1 is upside down. Everything else is fine.", "anomaly_detection_3x3", "Judgment: B\nError Position: G\nError Type: A"),
    ("Judgment: B\nError Position: G\nError Type: A\nEverything else is fine.", "anomaly_detection_3x3", "Judgment: B\nError Position: G\nError Type: A"),
    ("I don't see any rotation or mirroring, so the stitched image is correct.", "anomaly_detection",
     "Judgment: A\nError Position:\nError Type:"),
    ("The seams line up and nothing appears turned or flipped.", "anomaly_detection", "Judgment: A\nError Position:\nError Type:"),
    ("The top-left piece might be flipped, so the image is correct.", "anomaly_detection", None),
    ("If nothing is rotated, the image is correct.", "anomaly_detection", None),
    ("\u00bbAnswer: C\u00ab", PLH, "C"), ("The answer is \u00abnot C\u00bb", PLH, None),  # guillemets quote
    ("A: 0.9, B: 0.1 \u2192 A", "piece_localization_easy", "A"), ("A: no, B: yes \u2192 A", "piece_localization_easy", None),
    ("B \u2192 A", "piece_localization_easy", None),
    # a restating link names the answer of the clause before it, unless that clause negates, hedges or conditions it
    ("The patch comes from the roof, which is area C.", PLH, "C"), ("The patch belongs in the top-right area, labeled C.", PLH, "C"),
    ("The patch does not match the roof, which is area C.", PLH, None), ("It might be the roof, which is area C.", PLH, None),
    ("The patch probably corresponds to area D.", PLH, "D"), ("The patch possibly corresponds to area D.", PLH, None),
    # an edge's direction is not a relation ("a horizontal seam" joins crops stacked one above the other)
    ("They share a horizontal edge, so they're left-right neighbours: A.", CV, None),
    ("The centre tile is flipped left-right.\nJudgment: B\nError Position: C\nError Type: B", "anomaly_detection_3x3", None),
    ("According to the reference solution, the order is [1, 2, 3, 4].", OG, None),
    ("According to the seams, the order is [4, 2, 1, 3].", OG, "[4, 2, 1, 3]"),
    ("Image 4 top-left, 2 top-right, 1 bottom-left, 3 bottom-right:\n[4, 1, 2, 3]", OG, None),
    ("Image 4 top-left, 2 top-right, 1 bottom-left, 3 bottom-right:\n[4, 2, 1, 3]", OG, "[4, 2, 1, 3]"),
    ("image 1 sits above and to the right of image 2", CV8, "H"), ("image 2 is up-left of image 1", CV8, "F"),
    ("image 2 is not up-left of image 1", CV8, None),
    # the one option named, judged a fit after a colon; rows on one line; a placement verb; emoji bullets
    ("C: roofline matches.", "missing_piece_selection_hard", "C"), ("B: too dark.", "missing_piece_selection_hard", None),
    ("C: roofline matches, maybe.", "missing_piece_selection_hard", None),
    ("C: roofline matches; B: too dark.", "missing_piece_selection_hard", None),
    ("top row 7 3 1, middle row 2 6 9, bottom row 8 4 5", "order_generation_3x3", "[7, 3, 1, 2, 6, 9, 8, 4, 5]"),
    ("Put image 3 top-left, image 1 top-right, image 4 bottom-left, image 2 bottom-right.", OG, "[3, 1, 4, 2]"),
    ("Don't put image 3 top-left, image 1 top-right, image 4 bottom-left, image 2 bottom-right.", OG, None),
    ("\U0001f534 Judgment: B\n\U0001f4cd Error Position: D\n\U0001f504 Error Type: A", "anomaly_detection",
     "Judgment: B\nError Position: D\nError Type: A"), ("\u274c B", PLH, None),
    ("Judgment: B\nError Position: G\nError Type: B\n(Revoking this \u2014 G looked mirrored only because of the glass.)",
     "anomaly_detection_3x3", None),
]

OPTIONS = ["[1, 2, 4, 3]", "[2, 1, 4, 3]", "[3, 4, 1, 2]", "[4, 3, 2, 1]"]


@pytest.mark.parametrize("text,verdict", [
    ("Top-left: image 2. Top-right: image 1. Bottom-left: image 4. Bottom-right: image 3.\n\nAnswer: A", None),
    ("Top-left: image 2. Top-right: image 1. Bottom-left: image 4. Bottom-right: image 3.\n\nAnswer: B", "B"),
    ("Top row: 2, 1. Bottom row: 3, 4.\nB", None),
    ("Top: 2, 1; bottom: 4, 3.\n\nC", None), ("Top: 2, 1; bottom: 4, 3.\n\nB", "B"),  # rows said without "row"
    ("4 → top-left; 1 → top-right; 3 → bottom-left; 2 → bottom-right.\nAnswer: D", None),  # numbers to corners
    ("2 → top-left; 1 → top-right; 4 → bottom-left; 3 → bottom-right.\nAnswer: B", "B"),
    ("Top row: image 2 and image 1.\nB", "B"), ("Top row 2, 1? No, 2 has no sky.\nB", "B"),
    ("**Option C** is the correct reconstruction.", "C"),
    ("选项B，即 [1, 2, 4, 3]。", None), ("选项A，即 [1, 2, 4, 3]。", "A"),  # a restating link after its clause's comma
    ("C. Option A puts image 1 at the top-left, but image 1 is the ground.", "C"),  # a rejected option's placement
    ("**Verdict:** C\n\n| Region | Image |\n|---|---|\n| top-left | 3 |\n| top-right | 4 |\n| bottom-left | 2 |\n"
     "| bottom-right | 1 |", None), ("**Verdict:** C\n\n| Region | Image |\n|---|---|\n| top-left | 3 |\n"
                                  "| top-right | 4 |\n| bottom-left | 1 |\n| bottom-right | 2 |", "C"),
    ("Pořadí je tedy [2, 1, 4, 3], což odpovídá možnosti B.\n\nOdpověď: A", None),  # an order said before it
    ("Pořadí je tedy [2, 1, 4, 3], což odpovídá možnosti B.\n\nOdpověď: B", "B"),
    ("Both option A ([1, 2, 4, 3]) and option B ([2, 1, 4, 3]) start well.\nAnswer: B", "B"),  # options quoted
    ("Thought: [4, 3, 2, 1] corresponds to option D.\nAction: submit_answer\nAction Input: {\"answer\": \"C\"}", None),
])
def test_an_order_restoration_letter_agrees_with_the_regions_said(text, verdict):
    ex = classify_response(text, "order_restoration", OPTIONS)
    assert (ex.answer if ex.status == PARSED else None) == verdict, (text, ex)


@pytest.mark.parametrize("text,config,verdict", ISSUE_27 + RULE + SCOPE_3)
def test_the_careful_graders_verdict(text, config, verdict):
    ex = classify_response(text, config)
    if verdict is None:
        assert ex.status != PARSED, (text, ex)
    else:
        assert (ex.answer, ex.status) == (verdict, PARSED), (text, ex)


@pytest.mark.parametrize("text,answer", [
    ("Die beiden Bilder sind nicht benachbart.", "C"), ("Les deux images ne sont pas adjacentes.", "C"),
    ("Las dos imágenes no son adyacentes.", "C"), ("Le due immagini sono una sopra l'altra.", "B"),
    ("A. Die Bilder liegen nebeneinander.", "A"), ("C. 这两张图片不相邻。", "C"), ("A，两张图片左右相邻。", "A"),
    ("图2在图1的正下方，两张图是上下关系。", "B"), ("Hai ảnh không kề nhau.", "C"),
    # the other side: ruled out, hedged, or two relations at once
    ("Die Bilder liegen nicht nebeneinander.", None), ("Die Bilder liegen vielleicht nebeneinander.", None),
    ("Оба изображения не смежны по горизонтали.", None), ("Le due immagini sono forse una sopra l'altra.", None),
    ("B. Die Bilder liegen nebeneinander.", None), ("Las dos imágenes no son adyacentes, o quizás sí.", None),
])
def test_a_relation_said_in_another_language_is_read_as_its_option(text, answer):
    assert classify_response(text, CV).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Изображение 2 находится прямо под изображением 1.", "D"), ("圖二在圖一的左上方。", "F"),
    ("이미지 2는 이미지 1의 바로 위쪽에 있습니다.", "C"), ("Ảnh 2 nằm chéo ở phía dưới bên phải của ảnh 1.", "G"),
    ("La imagen 2 está justo a la izquierda de la imagen 1.", "B"), ("चित्र 2, चित्र 1 के ठीक ऊपर है।", "C"),
    ("Bild 1 liegt links von Bild 2.", "A"),  # said of image 1: the direction turns round
    ("答案：F（图像2位于图像1的左上方）", "F"), ("A imagem 2 fica na diagonal, acima e à direita da imagem 1.", "E"),
    # the other side: negated, hedged, conditional, two directions, a letter that disagrees, not opening the sentence
    ("Изображение 2 не находится под изображением 1.", None), ("La imagen 2 está quizás a la izquierda de la imagen 1.", None),
    ("Wenn Bild 2 links von Bild 1 liegt, dann B.", None), ("Bild 2 liegt links oder über Bild 1.", None),
    ("画像2が画像1の上にあると仮定すると、Bです。", None), ("答案：E（图像2位于图像1的左上方）", None),
    ("Links von Bild 1 liegt Bild 2.", None), ("图2和图1上下相邻。", None), ("Bild 2 liegt links von Bild 1? Nein.", None),
    ("图2在图1的左边吗？", None), ("Изображение 2 находится выше изображения 1 и правее.", None),
    ("Bild 2 liegt über Bild 1, etwas nach rechts versetzt.", None), ("图2在图1的上方，稍微偏右。", None),
])
def test_where_one_image_lies_from_the_other_in_another_language(text, answer):
    assert classify_response(text, "connection_verification_3x3_8dir").answer == answer
    if answer is not None:  # the same sentence on the 4-way task: beside (A), above or below (B), diagonal (C)
        assert classify_response(text.replace("答案：" + answer, "").strip("（）"), CV).answer == \
            ("A" if answer in "AB" else "B" if answer in "CD" else "C")


@pytest.mark.parametrize("text,answer", [
    ("The third input image is the correct patch.", "B"), ("Candidate 2 fills the blank area.", "B"),
    ("The third input image is not the correct patch.", None), ("Maybe candidate 2 fills the blank area?", None),
    ("If candidate 2 fills the blank area, B.", None),
])
def test_a_candidate_said_to_be_the_patch_or_to_fill_the_gap(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("候选3能补全空白区域。", "C"), ("La primera opción.", "A"), ("4番目の候補です。", "D"), ("Der zweite Kandidat passt.", "B"),
    ("세 번째 후보 이미지가 빈 영역을 채웁니다.", "C"), ("Le deuxième patch candidat complète parfaitement la zone manquante.", "B"),
    # the other side: ruled out, hedged, conditional, not a candidate
    ("La primera opción no encaja.", None), ("Quizás la segunda opción.", None), ("Der zweite Kandidat passt nicht.", None),
    ("Si la primera opción encaja, A.", None), ("候选5能补全空白区域。", None),
])
def test_a_candidate_named_in_another_language(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,config,said", [
    ("Нижний левый фрагмент отзеркален.", "anomaly_detection", ("C", "B")),
    ("الجزء العلوي الأيمن مقلوب رأسًا على عقب.", "anomaly_detection", ("B", "A")),
    ("La sous-image en haut à gauche est inversée en miroir.", "anomaly_detection", ("A", "B")),
    ("Ô ở hàng 1, cột 1 bị lật gương.", "anomaly_detection_3x3", ("A", "B")),
    ("中央のタイル（2行目・2列目）が左右反転しています。", "anomaly_detection_3x3", ("E", "B")),
    ("Das Teil in der Mitte der obersten Reihe ist um 90° gedreht.", "anomaly_detection_3x3", ("B", "A")),
    # the other side: negated, hedged, two changes or two tiles, a centre on a 2x2 grid, a word that is either change
    ("Нижний левый фрагмент не отзеркален.", "anomaly_detection", None),
    ("Vielleicht ist das Teil oben links gedreht.", "anomaly_detection", None),
    ("Das Teil oben links ist gedreht oder gespiegelt.", "anomaly_detection", None),
    ("Das Teil oben links und das Teil oben rechts sind gedreht.", "anomaly_detection", None),
    ("Das Teil in der Mitte ist gedreht.", "anomaly_detection", None),
    ("오른쪽 위 조각이 회전된 것 같기도 하고 뒤집힌 것 같기도 합니다.", "anomaly_detection", None),
    ("오른쪽 위 조각이 뒤집혀 있습니다.", "anomaly_detection", None),
    ("中间的图块被旋转了。", "anomaly_detection_3x3", ("E", "A")),  # a centre; in a row it is the row's middle:
    ("第一行中间的图块被旋转了。", "anomaly_detection_3x3", None), ("Ô ở giữa hàng trên cùng bị xoay.", "anomaly_detection_3x3", None),
    ("Das Teil in der Mitte der ersten Reihe ist gedreht.", "anomaly_detection_3x3", None),
])
def test_a_tile_and_its_change_said_in_another_language(text, config, said):
    want = None if said is None else f"Judgment: B\nError Position: {said[0]}\nError Type: {said[1]}"
    assert classify_response(text, config).answer == want


@pytest.mark.parametrize("text,answer", [
    ("左上是图1，右上是图3，左下是图2，右下是图4。", "[1, 3, 2, 4]"),
    ("Arriba a la izquierda va la imagen 4, arriba a la derecha la 2, abajo a la izquierda la 1 y abajo a la derecha "
     "la 3.", "[4, 2, 1, 3]"),
    # the other side: one negated, one hedged, one image twice, a corner twice, only three corners
    ("左上是图1，右上不是图3，左下是图2，右下是图4。", None), ("左上是图1，右上是图3，左下可能是图2，右下是图4。", None),
    ("左上是图1，右上是图3，左下是图3，右下是图4。", None), ("左上是图1，左上是图3，左下是图2，右下是图4。", None),
    ("左上是图1，右上是图3，左下是图2。", None), ("左上是图1，右上是图2，左下是图3，右下是图4？", None),
])
def test_four_placements_said_in_another_language(text, answer):
    assert classify_response(text, OG).answer == answer


def test_a_piece_changed_before_a_none_block_counts_a_negation_in_another_language():
    text = "La imagen está correcta; ninguna subimagen fue rotada ni reflejada.\n\nJudgment: A\nError Position:\nError Type:"
    assert classify_response(text, "anomaly_detection").answer == "Judgment: A\nError Position:\nError Type:"
    said = "Everything lines up except the top-left tile, which is rotated 90°.\nJudgment: A\nError Position:\nError Type:"
    assert classify_response(said, "anomaly_detection").answer is None  # 'except' is no negation of 'rotated'


@pytest.mark.parametrize("text,config,strict", [
    ("B", PLH, "B"), ("Answer: B", PLH, "B"), ("B.", PLH, "B"), ("Let me think.\nB", PLH, "B"),
    ("Answer: D\nB", PLH, None),  # two exact answers: none
    ("The answer is B.", PLH, None), ("(B)", PLH, None), ("Answer: B or D", PLH, None), ("E", PLH, None),
    ("[2, 3, 1, 4]", OG, "[2, 3, 1, 4]"), ("Order:\n[2,3,1,4]", OG, None),  # #43: a label line above ("[1, 1, 2, 3]", OG, None),
    ("2 3 1 4", OG, None),
    ("[(2, 90), (1, 0), (3, 180), (4, 270)]", "order_generation_2x2_rot", "[(2, 90), (1, 0), (3, 180), (4, 270)]"),
    ("Incorrect\nB", PLH, None), ("Worst match:\nB", PLH, None), ("The answer is not\nB", PLH, None),
    ("Reasoning.\nJudgment: B\nError Position: C\nError Type: A", "anomaly_detection",
     "Judgment: B\nError Position: C\nError Type: A"),
    ("Judgment: A\nError Position:\nError Type:", "anomaly_detection", "Judgment: A\nError Position:\nError Type:"),
    ("Judgment: B\nError Position: C\nError Type: A\nor D", "anomaly_detection", None),
    ("<think>B</think>\nC", PLH, "C"), ("<think>the answer is B\nB", PLH, None),
])
def test_the_strict_reader_reads_only_the_exact_format(text, config, strict):
    assert classify_response(text, config).strict == strict


def test_score_reports_strict_beside_flexible():
    res = score(["B", "The answer is B.", "Answer: C", "I pick D, not C."], ["B", "B", "C", "D"], PLH)
    col = res[PLH]
    assert (col["accuracy"], col["correct"], col["strict_accuracy"], col["strict_correct"]) == (100.0, 4, 50.0, 2)
    assert res["overall"]["strict_accuracy"] == 50.0


def test_a_stored_record_without_strict_gets_it_from_its_output():
    from jigsaw_puzzles.inference.runner import stored_verdict, verdicts

    rec = {"output": "Answer: C", "config": PLH}
    new = verdicts([rec], [{"answer": "C", "options": None}])[0]
    assert new["strict"] == "C" and stored_verdict({**rec, **new})[0].strict == "C"
    old = {**rec, **{k: v for k, v in new.items() if k != "strict"}}
    assert stored_verdict(old)[0].strict == "C"
    assert stored_verdict({"output": "C", "config": "no_such_config", "extracted": None})[0].strict is None


def test_results_json_has_strict_beside_flexible(tmp_path):
    import json

    from fixtures.rows import make_dataset
    from jigsaw_puzzles.inference import evaluate_model

    data = {"connection_verification": make_dataset("connection_verification", 6, seed=0, size=(72, 72))}
    res = evaluate_model("random", data=data, out=tmp_path / "run", progress=False)
    col = res["metrics"]["connection_verification"]
    recs = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert col["strict_correct"] == sum(r["strict"] == r["answer"] for r in recs)
    assert col["strict_accuracy"] == 100.0 * col["strict_correct"] / len(recs)
    stored = json.loads((tmp_path / "run" / "results.json").read_text())
    assert json.dumps(stored).count("strict_accuracy") >= 2  # per config and overall




@pytest.mark.parametrize("text,answer", [
    ("Image 2 is directly below image 1.", "B"), ("Image 2 sits right below image 1.", "B"),
    ("Image 2 is probably below image 1.", "B"), ("Image 2 is to the left of image 1.", "A"),
    ("Image 2 lies just to the right of image 1.", "A"), ("Image 2 clearly continues directly below image 1.", "B"),
    # and so it stands against a later letter that says another relation
    ("Image 2 clearly continues directly below image 1: the trunk runs on.\nAnswer: A", None),
    # the other side: the words between an image and where it lies are known words only, never a negation or a hedge
    ("Image 2 is not below image 1.", None), ("Image 2 is never to the left of image 1.", None),
    ("Image 2 is maybe below image 1.", None), ("Image 2 is probably not below image 1.", None),
    ("Image 2 is hardly below image 1.", None), ("Image 2 is not probably to the right of image 1.", None),
    ("Image 2 clearly does not continue below image 1.", None), ("Image 2 probably is not below image 1.", None),
])
def test_where_one_image_lies_is_read_through_known_words_only(text, answer):
    assert classify_response(text, CV).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("The answer to this puzzle is B.", "B"), ("The correct choice for the blank is C.", "C"),
    # the other side: a condition, a hedge or a negation between the label and its copula
    ("The answer in case image 2 is rotated is B.", None), ("The answer if the seams are ignored is B.", None),
    ("The answer to a question I cannot see is maybe B.", None),
])
def test_the_words_between_a_label_and_its_copula_are_never_a_condition(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Die Antwort ist vermutlich B.", "B"), ("Ответ, видимо, C.", "C"), ("La réponse est sans doute B.", "B"),
    ("Odpowiedź to chyba B.", "B"), ("Cevap galiba D.", "D"),  # a likelihood the graders read as the answer ("Probably D")
    # the other side: a word that leaves the answer open, or a negation, beside the same forms
    ("Die Antwort ist vermutlich nicht B.", None), ("Ответ, возможно, C.", None), ("La réponse est peut-être B.", None),
    ("Odpowiedź to może B.", None), ("Die Antwort ist vielleicht B.", None),
])
def test_a_word_of_likelihood_in_another_language_is_a_filler_a_word_of_doubt_a_hedge(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("TL=1, TR=3, BL=2, BR=4", "order_generation", [1, 3, 2, 4]),
    ("Top: 2 → 8 → 5\nMiddle: 9 → 1 → 4\nBottom: 6 → 3 → 7", "order_generation_3x3", [2, 8, 5, 9, 1, 4, 6, 3, 7]),
    ("Top: 1 | 4\nBottom: 2 | 3", "order_generation", [1, 4, 2, 3]), ("Bottom: 1, 3\nTop: 2, 4", "order_generation", [2, 4, 1, 3]),
    ("Row 1 (top): 4, 9, 2 / Row 2: 3, 5, 7 / Row 3 (bottom): 8, 1, 6", "order_generation_3x3", [4, 9, 2, 3, 5, 7, 8, 1, 6]),
    # the other side: asked, hedged, two orders, rows named twice or against their number, a condition above
    ("TL=1, TR=3, BL=2, BR=4?", "order_generation", None), ("Maybe TL=1, TR=3, BL=2, BR=4.", "order_generation", None),
    ("TL=1, TR=3, BL=2, BR=4, or TL=3, TR=1, BL=4, BR=2.", "order_generation", None),
    ("Not TL=1, TR=3, BL=2, BR=4.", "order_generation", None), ("Top: 2, 4\nTop: 1, 3", "order_generation", None),
    ("Top: 1 | 4\nBottom: 2 | 3\nor maybe the other way round", "order_generation", None),
    ("If the sky is at the top:\nTop: 2, 4\nBottom: 1, 3", "order_generation", None),
    ("Row 1 (bottom): 4, 9, 2 / Row 2: 3, 5, 7 / Row 3 (top): 8, 1, 6", "order_generation_3x3", None),
])
def test_corners_abbreviated_and_rows_labelled_by_place(text, config, answer):
    assert classify_response(text, config).answer == (str(answer) if answer else None)


_B = "Judgment: B\nError Position: {p}\nError Type: {t}"


@pytest.mark.parametrize("text,answer", [
    (_B.format(p="C（左下角）", t="B（镜像）"), "C B"), (_B.format(p="C (unten links)", t="A"), "C A"),
    ("Giudizio: B\nPosizione dell'errore: C\nTipo di errore: B (specchiatura)", "C B"),
    ("Judgment: B (probably)\nError Position: A\nError Type: A", "A A"), (_B.format(p="A", t="B (fairly confident)"), "A B"),
    # the other side: a place that names another cell, a negated place, doubt, another type in words
    (_B.format(p="C（左上角）", t="B"), None), (_B.format(p="C (oben links)", t="A"), None),
    (_B.format(p="C（不是左下角）", t="B"), None), (_B.format(p="A (not sure)", t="A"), None),
    ("Judgment: B (probably not)\nError Position: A\nError Type: A", None), (_B.format(p="A", t="B (possibly)"), None),
    ("Giudizio: B\nPosizione dell'errore: C\nTipo di errore: B (rotazione)", None),
])
def test_an_anomaly_field_glossed_in_brackets(text, answer):
    got = classify_response(text, "anomaly_detection").answer
    assert got == (None if answer is None else "Judgment: B\nError Position: {}\nError Type: {}".format(*answer.split()))


@pytest.mark.parametrize("text,config,answer", [
    ("[3, 2, 4, 1]\n[3, 2, 4, 1]", "order_generation", "[3, 2, 4, 1]"),  # a stream's repeat is said once
    ("Judgment: B\nError Position: C\nError Type: A\n\nError Position: C\nError Type: A", "anomaly_detection",
     "Judgment: B\nError Position: C\nError Type: A"),
    ("Judgment: A\nError Position:\nError Type:\nError Type:", "anomaly_detection", "Judgment: A\nError Position:\nError Type:"),
    # the other side: the repeat differs
    ("[3, 2, 4, 1]\n[2, 3, 4, 1]", "order_generation", None),
    ("Judgment: B\nError Position: C\nError Type: A\nError Type: B", "anomaly_detection", None),
    ("Judgment: B\nError Position: C\nError Position: D\nError Type: A", "anomaly_detection", None),
    ("Top row: 1, 2. Bottom row: 4, 3.\n\n[1, 2, 3, 4]", "order_generation", None),
])
def test_a_line_or_field_repeated_with_the_same_value(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("A\n\nThe seam continues, i.e. the two are side by side.", "missing_piece_selection_easy", "A"),  # "i.e." is no "I"
    ("A. Let me explain: the seam continues into image 2.", "missing_piece_selection_easy", "A"), ("B — and that's my final answer.", "missing_piece_selection_easy", "B"),
    ("D\n\nThe fourth candidate continues the stone wall at the same height, and its moss lines up with the gap. I also checked the lighting: the wall is lit from the upper right, and so is D.",
     "missing_piece_selection_easy", "D"),
    # the other side: another answer kept open, doubt, a note that changes the order's convention
    ("A. Let me know if I should pick C instead.", "missing_piece_selection_easy", None), ("A. Let me explain why it might be C.", "missing_piece_selection_easy", None),
    ("A. I also checked the seams, and C could be right too.", "missing_piece_selection_easy", None), ("A. I arrived at this by guessing.", "missing_piece_selection_easy", None),
    ("[3, 1, 4, 2]\n\n(Here each number is the position where the corresponding image goes, i.e. image 1 → position 3.)",
     "order_generation", None),
])
def test_the_model_speaking_of_itself_after_the_answer(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Área C.", "C"), ("区域D。", "D"), ("Zona B.", "B"),  # an area word as a label, as "Area C."
    ("不是区域D。", None), ("Nicht Bereich A.", None), ("Área C? No sé.", None),
])
def test_an_area_word_in_another_language_as_a_label(text, answer):
    assert classify_response(text, "piece_localization_hard").answer == answer


_ROT = "TL: image 2, rotate 90°\nTR: image 4, no rotation\nBL: image 1, rotate 180°\n{last}"


@pytest.mark.parametrize("text,answer", [
    (_ROT.format(last="BR: image 3, rotate 270°"), "[(2, 90), (4, 0), (1, 180), (3, 270)]"),
    (_ROT.format(last="BR: image 3, rotate 270°") + "\n\n[(2, 90), (4, 0), (1, 180), (3, 270)]", "[(2, 90), (4, 0), (1, 180), (3, 270)]"),
    # the other side: a corner twice, a rotation left open, prose that disagrees with the list after it
    (_ROT.format(last="TL: image 3, rotate 270°"), None), (_ROT.format(last="BR: image 3, rotate 270° or 90°"), None),
    (_ROT.format(last="BR: image 3, rotate 270°") + "\n\n[(2, 90), (4, 0), (3, 270), (1, 180)]", None),
])
def test_rotated_pieces_placed_at_abbreviated_corners(text, answer):
    assert classify_response(text, "order_generation_2x2_rot").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("A. Correct", "anomaly_detection", ("A", "", "")),
    ("B. Incorrect — D. Bottom-right, B. Mirroring", "anomaly_detection", ("B", "D", "B")),
    ("1. B. Incorrect\n2. C. Bottom-left (the sub-image in the bottom-left corner); A. Rotation", "anomaly_detection", ("B", "C", "A")),
    ("B. Incorrect; F. middle-right; B. Mirroring", "anomaly_detection_3x3", ("B", "F", "B")),
    # the other side: a letter and words that disagree, two judgments, a hedge after the echo
    ("B. Correct", "anomaly_detection", None), ("A. Incorrect", "anomaly_detection", None),
    ("B. Incorrect — D. Top-left, B. Mirroring", "anomaly_detection", None),
    ("B. Incorrect — D. Bottom-right, A. Mirroring", "anomaly_detection", None),
    ("A. Correct, B. Incorrect", "anomaly_detection", None),
    ("B. Incorrect — D. Bottom-right, B. Mirroring, or maybe C.", "anomaly_detection", None),
])
def test_the_anomaly_options_echoed_with_their_own_words(text, config, answer):
    want = None if answer is None else "Judgment: {}\nError Position:{}\nError Type:{}".format(
        answer[0], *(f" {x}" if x else "" for x in answer[1:]))
    assert classify_response(text, config).answer == want


@pytest.mark.parametrize("text,config,answer", [
    ("Answer: C. The sky continues into the gap.", "missing_piece_selection_easy", "C"),
    ("`[3, 2, 4, 1]`\n\nRationale in one line: the horizon is continuous across 3→2.", "order_generation", "[3, 2, 4, 1]"),
    ("Answer: C. The others do not match.", "missing_piece_selection_easy", "C"),
    ("C\n\nThey share no edge, so they're diagonal, not adjacent.", "connection_verification", "C"),
    # the other side: the explanation says the answer does not fit, or names another answer as the fit
    ("Answer: C. It does not match.", "missing_piece_selection_easy", None),
    ("Answer: C. It doesn't continue the roof line.", "missing_piece_selection_easy", None),
    ("Answer: C. The sky continues into D.", "missing_piece_selection_easy", None),
])
def test_a_sentence_of_fit_after_the_answer(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("Scelgo l'opzione A.", "missing_piece_selection_easy", "A"),
    ("The content in image 2 corresponds to masked area A.", "piece_localization_easy", "A"),
    ("Matching option: A", "order_restoration", "A"),
    ("Image 1 has flat top and left sides. That gives [1, 3, 2, 4], option B.", "order_restoration", "B"),
    # the other side: negated, hedged, conditional
    ("The content in image 2 does not correspond to masked area A.", "piece_localization_easy", None),
    ("Image 1 has flat top and left sides. That gives [1, 3, 2, 4], or maybe option C.", "order_restoration", None),
    ("If the sky is at the top, that gives option B.", "order_restoration", None), ("Non scelgo l'opzione A.", "missing_piece_selection_easy", None),
])
def test_more_commit_forms_as_data(text, config, answer):
    options = ["[2, 1, 3, 4]", "[1, 3, 2, 4]", "[4, 3, 2, 1]", "[3, 4, 1, 2]"] if config == "order_restoration" else None
    assert classify_response(text, config, options).answer == answer


_BOX = "┌───┬───┐\n│ 1 │ 2 │\n├───┼───┤\n│ 4 │ 3 │\n└───┴───┘"


@pytest.mark.parametrize("text,config,answer", [
    (_BOX, "order_generation", "[1, 2, 4, 3]"), ("<!-- considered B -->\nD", "piece_localization_hard", "D"),
    ("<!-- draft: A -->\n**C**", "piece_localization_hard", "C"),
    # the other side: a hidden comment is never an answer, a line that rejects stays above it, a tail after the box
    ("<!-- Answer: B -->", "piece_localization_hard", None), ("Incorrect:\n<!-- note -->\nB", "piece_localization_hard", None),
    ("Worst match:\n\n<!-- x -->\nB", "piece_localization_hard", None), (_BOX + "\nor maybe the other way round", "order_generation", None),
])
def test_a_first_line_of_markup_or_a_box_border_around_the_answer(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("H — the tram tracks leave image 1 at its lower-left corner and enter image 2 at its upper-right corner.", "H"),
    ("The cloud bank at the right edge of image 1 continues at the left edge of image 2, so image 2 is directly to the right: A.", "A"),
    # the other side: a corner named is no direction (nothing read from it), another direction still stays open
    ("Image 2 sits at the lower-left corner of image 1.", None), ("G, but maybe upper-right.", None),
    ("G. The stairs leave image 1 at its bottom-right corner; E would also work.", None),
])
def test_a_corner_or_an_edge_of_one_image_is_no_direction(text, answer):
    assert classify_response(text, "connection_verification_3x3_8dir").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Final answer: A (the patch's fern fronds match the undergrowth around mask A).", "A"),
    ("Final answer: option C (the only patch that continues the railing across the gap).", "C"),
    # the other side: a bracket that rules the answer out, names another, hedges, or is no reason
    ("Final answer: C (it does not match).", None), ("Final answer: C (D matches better).", None),
    ("Final answer: C (maybe; the sky matches).", None), ("Final answer: C (the sky matches, but I might be wrong).", "C"),
    ("Final answer: C (the sky matches, but I might be wrong about D).", None),
    ("Final answer: C (the sky matches). Or D.", None), ("B (Candidate 3)", None), ("C (see note)", None),
    ("C (the only one that matches; D is close)", None), ("C (if the sky matches)", None),
])
def test_a_reason_in_brackets_after_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Resposta: D, ou seja, [3, 4, 1, 2].", "D"), ("Ответ: D, то есть [3, 4, 1, 2].", "D"),
    # the other side: the restated order is another option's, or hedged
    ("Resposta: D, ou seja, [1, 3, 2, 4].", None), ("Resposta: D, ou seja, talvez [3, 4, 1, 2].", None),
])
def test_an_answer_restated_with_that_is_in_another_language(text, answer):
    options = ["[2, 1, 3, 4]", "[1, 3, 2, 4]", "[4, 3, 2, 1]", "[3, 4, 1, 2]"]
    assert classify_response(text, "order_restoration", options).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Discarded: A, C. Kept: B.", "B"), ("Eliminated: A, B, D. Remaining: C.", "C"), ("I still say B.", "B"),
    ("I agree: A.", "A"), ("I stand by D.", "D"),
    # the other side: two kept, negated, asked; 'left' is no label ('to the left: B' stays a direction elsewhere)
    ("Kept: B or C.", None), ("I still say not B.", None), ("I still say B? Not sure.", None), ("Left: C", None),
])
def test_kept_remaining_and_standing_by_an_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Top left is two, top right is four, bottom left one, and bottom right three", "[2, 4, 1, 3]"),
    ("Image 3 is the top-left (it has the left edge of the roof), image 1 the top-right, image 4 the bottom-left and "
     "image 2 the bottom-right.", "[3, 1, 4, 2]"),
    ("1. top-left → 3\n2. top-right → 4\n3. bottom-left → 1\n4. bottom-right → 2", "[3, 4, 1, 2]"),
    # the other side: another number, a hedge, a condition between the placements (they read before 2026-11-29)
    ("Top left is 2 or 4, top right is 4, bottom left is 1, bottom right is 3.", None),
    ("Top left is 2, top right is 4 (or maybe 3), bottom left is 1, bottom right is 3.", None),
    ("Top left is two or four, top right is four, bottom left is one, bottom right is three.", None),
    ("Image 2 goes top-left, image 4 top-right (or image 3), image 1 bottom-left and image 3 bottom-right.", None),
    ("Top-left: 2, top-right: 4 if the sky is up, bottom-left: 1, bottom-right: 3", None),
])
def test_four_placements_said_in_english(text, answer):
    assert classify_response(text, "order_generation").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("| Candidate | Selected |\n|---|---|\n| A | no |\n| B | yes |\n| C | no |", "B"),
    ("| Candidate | Fit | Selected |\n|---|---|---|\n| A | poor | no |\n| B | good | yes |\n| C | might fit | no |", "B"),
    ('{"answer": "B", "confidence": "high"}', "B"), ('{"thinking": "maybe C", "answer": "B"}', "B"),
    ('{"answer": "B", "reason": "B continues the fence; A and C do not"}', "B"),
    # the other side: a row or a note beside the answer keeps another open (both read B until 2026-11-29)
    ("| Candidate | Selected |\n|---|---|\n| A | no |\n| B | yes |\n| C | maybe |", None),
    ("| Candidate | Selected |\n|---|---|\n| A | no |\n| B | yes |\n| C | ? |", None),
    ('{"answer": "B", "confidence": "low, could be C"}', None), ('{"answer": "B", "reason": "B or C, both fit"}', None),
])
def test_a_table_row_or_a_note_beside_the_answer_that_keeps_another_open(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("A: no\nB: yes\nC: no\nD: no", "B"), ("Answer: C. A has the wrong colour.", "C"),
    # the other side: another option kept possible in a verdict list, or in an explanation opening with its letter
    ("A: no\nB: yes\nC: maybe\nD: no", None), ("A ✗ B ✓ C ? D ✗", None), ("A: no, B: yes, C: possibly, D: no", None),
    ("Answer: C\n\nExplanation: A could work too.", None), ("Answer: C\n\nExplanation: C matches, but honestly A could work too.", None),
])
def test_another_option_kept_possible_beside_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("It matches area B, the one on the right side next to the window.", "B"), ("The answer is A (the one by the window).", "A"),
    ("The answer is A, the one by the window. B is wrong.", "A"),
    # the other side: the description hedges, rules the answer out, or holds a condition
    ("The answer is A, the one with the sky, or maybe B.", None), ("The answer is A, the one that does not match.", None),
    ("The answer is A, the one I'd pick if the sky were lower.", None),
])
def test_the_answer_described_as_the_one(text, answer):
    assert classify_response(text, "piece_localization_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Were I forced to choose, D.", "D"), ("If forced to choose, D.", "D"), ("If I had to bet, C.", "C"),
    ("Unless I'm mistaken, D.", "D"),  # forced choices and a disclaimer, as "If I had to choose, D." already read
    # the other side: a condition on the pictures, a hedge or a negation still abstains
    ("Unless the sky is lower, D.", None), ("Unless I'm mistaken, D, or maybe C.", None),
    ("Unless I'm mistaken, the answer is not D.", None), ("If the images were forced to fit, D.", None),
])
def test_a_forced_choice_or_a_disclaimer_before_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_hard").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("D\n\nSources: 1. jigsaw-puzzles dataset card\n\nWas this helpful?", "D"),
    ("D\n\nSources:\n1. The dataset card\n2. Wikipedia, Jigsaw puzzle", "D"),
    # the other side: a "source" that names an option, a list, or says something of the answer is no residue
    ("D\n\nSources: 1. Option B is better", None), ("D\n\nSources: 1. the answer is actually c", None),
    ("D\n\nSources: 1. I was wrong", None), ("D\n\nSources: 1. [B]", None), ("D\n\nSources: 1. 2 4 1 3", None),
])
def test_a_list_of_sources_without_links_after_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Answer: -B", None), ("Answer: ~B", None), ("Answer: \u2212B", None), ("-B", None),  # a sign touching the letter
    # the other side: a dash with a space is a bullet or a separator, a hyphen between an item and its letter a key
    ("Answer: - B", "B"), ("Answer:\n- B", "B"), ("- B", "B"), ("1-B", "B"),
])
def test_a_minus_or_a_tilde_touching_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Ruled out:\nB\nD", None), ("Definitely not:\nB\nD\n\nStill comparing A and C.", None),  # a run under a rejecting label
    ("Worst matches:\nA\nC", None),
    # the other side: a run of one answer repeated, or an answer under a label that commits
    ("Final answer:\nC\nC", "C"), ("Ruled out:\nB\n\nAnswer: C", "C"),
])
def test_a_run_of_bare_answers_is_read_under_the_line_above_the_run(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # a concession does not replace the answer before it, and keeps open an option it says fits
    ("C. Although D fits.", None), ("C. Though D fits.", None), ("C. Because the brick matches, although D fits.", None),
    ("C. Porque el ladrillo coincide, aunque D encaja.", None), ("C, obwohl D passt.", None),
    ("C. Then again, D fits.", None), ("C, although D matches the sky.", None),
    # the other side: a concession that grants a feature, or rules the option out, keeps the answer; a turn set off
    # by commas (", though,") and "looking again" still replace it
    ("C, although D is close, its sky is off.", "C"), ("C, although area D contains similar foliage.", "C"),
    ("The answer is C. Image 2 has the sun, though, so the answer is D.", "D"),
    ("The answer is C. Though, looking again, the answer is D.", "D"),
])
def test_a_concession_keeps_another_option_open_and_replaces_nothing(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("D. A is too dark.", "D"), ("D. It fits the brick pattern; A is too dark and C is the wrong scale.", "D"),
    ("C, because the horizon matches; B's horizon is too low.", "C"),  # "too" before an adjective is no "also"
    # the other side: "too" as "also" keeps the option open
    ("D. A fits too.", None), ("D. A too fits.", None), ("D. A too could work.", None),
    ("D. A fits too, but B is darker.", None), ("D. A is good too, but I am not sure.", None),
    # granted, then ruled out in its sentence ("but darker", "but ... not plain blue"): the answer stays
    ("D. A is good too, but darker.", "D"),
    ("A.\n\nArea C was the closest alternative because it also covers a window, but its awning is not blue.", "A"),
])
def test_too_before_an_adjective_rejects_and_too_as_also_keeps_open(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("The answer is C. Would you like me to explain why?", PLH, "C"), ("B. Anything else?", PLH, "B"),
    ("D — want me to do the next puzzle too?", PLH, "D"), ("C\n\nIs there anything else I can help with?", PLH, "C"),
    ("[4, 3, 2, 1]\n\nShall I walk you through how I matched the edges?", "order_generation", "[4, 3, 2, 1]"),
    ("Draft: A (to be confirmed)\nThe lower edges don't meet.\nConfirmed: A", PLH, "A"),
    ("A\n\n*AI responses may contain mistakes. Please verify important information.*", PLH, "A"),
    ("补丁的树枝和B区域吻合，所以是B。", PLH, "B"),
    # the other side: an offer that doubts or changes the answer, a later "so it is" that gives another answer, a note
    # that renumbers the order
    ("C. Should I change it to B?", PLH, None), ("C. Want me to switch to d?", PLH, None),
    ("C. Shall I pick another one?", PLH, None), ("C. Would you like me to double-check?", PLH, None),
    ("C. Do you want me to try again?", PLH, None), ("Confirmed: not A", PLH, None),
    ("答案是A。补丁中的树枝和B区域周围的树枝完全吻合，所以是B。", PLH, None),
    ("[7, 2, 9, 4, 1, 6, 3, 8, 5]\n\n(Each number is the grid position where image 1, image 2, image 3, ... belongs, in that "
     "order.)", "order_generation_3x3", None),
])
def test_an_offer_after_the_answer_and_so_it_is(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("答案是D：阴影方向一致。", "D"), ("答案是B。等等，不对，应该是D：阴影方向和D区一致。", "D"),  # a full-width colon opens a remark
    ("Não é a B, é a C: a cerca continua no candidato 3.", "C"),  # Portuguese "no" is "in the"
    # the other side: a remark that keeps another open, withdraws, disclaims, or makes the answer conditional
    ("答案是D：也可能是B。", None), ("答案是D：B也可以。", None), ("答案是D：不对，是B。", None), ("答案是D：开玩笑的。", None),
    ("答案是D：如果图片旋转了的话。", None), ("答案是D，因为如果放在那里，阴影一致。", None),
    ("A resposta é C. Não é o candidato 3.", None),
])
def test_a_remark_after_a_full_width_colon_and_portuguese_no(text, answer):
    assert classify_response(text, "missing_piece_selection_easy" if "candidat" in text else PLH).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("Worst match: A\nBest match: D", "D"), ("Rejected candidates: B, D\nFinal choice: A", "A"),  # another one rejected
    # the other side: the same answer rejected before, or any answer made conditional before, binds the later one
    ("Worst match: D\nSo: D", None), ("Worst match: D\nBest match: D", None), ("If the sky is lower, A. So: D", None),
])
def test_a_rejected_answer_binds_only_itself_a_conditional_one_binds_any(text, answer):
    assert classify_response(text, PLH).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("Second choice:\nA\n\nFirst choice:\nD", PLH, "D"), ("Least likely:\nA\n\nMost likely:\nC", PLH, "C"),
    ("Ruled out: A, B\nLeast likely of the rest:\nD\nChosen:\nC", PLH, "C"),
    ("Rejected ordering:\n[2, 1, 4, 3]\n\nAccepted ordering:\n[2, 4, 1, 3]", OG, "[2, 4, 1, 3]"),
    # the other side: the answer set aside by the line above, and no other one given, is not read
    ("Worst match\nB", PLH, None), ("Rejected ordering:\n[2, 1, 4, 3]", OG, None), ("Second choice:\nA", PLH, None),
    ("Second choice:\nA\n\nFirst choice:\nA\nor D", PLH, None),
])
def test_an_answer_set_aside_by_the_line_above_is_no_earlier_answer(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    ("No. B.", "B"), ("A. Wait no. B.", "B"), ("A\n\nWait, no. B.", "B"),  # "no." ends a sentence before a letter
    ("A\n\nCopy \u00b7 Edit \u00b7 \U0001f44d \u00b7 \U0001f44e\n\nwait no. B.", "B"),
    # the other side: "No. 3" is a number's abbreviation, "no: B" a verdict on B, "No B" a negation
    ("No. 3 is the answer.", None), ("A. Wait, no: B.", None), ("No B.", None),
])
def test_no_with_a_full_stop_ends_a_sentence(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    ("[3, 1, 2, 4] \u2014 wait, 2 and 4 are swapped: [3, 1, 4, 2].", "[3, 1, 4, 2]"),  # the withdrawal opens a lead-in
    # the other side: a condition after the withdrawal, or a withdrawal with no new answer
    ("[3, 1, 2, 4] \u2014 wait, if 2 and 4 are swapped: [3, 1, 4, 2].", None), ("[3, 1, 2, 4] \u2014 wait, no.", None),
])
def test_a_reason_after_a_withdrawal_closed_by_a_colon(text, answer):
    assert classify_response(text, OG).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("Worst match: A\n+ D", PLH, None), ("Worst match: A\nD", PLH, None),  # a bare answer after a rejected one joins it
    ("Let me look at the seams carefully.\nWorst match: Answer: [(1, 0), (2, 0), (3, 0)]\n+ [(1, 90), (2, 90), (3, 90)]",
     "order_generation_1x3_rot", None),  # found by the composition property test
])
def test_a_bare_answer_after_a_rejected_one_is_not_read(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # misreads found by writers aimed at the documented rule in other languages (dev_23), each closed
    ("A. \u05d0\u05d1\u05dc \u05d0\u05e0\u05d9 \u05e0\u05d5\u05d8\u05d4 \u05d9\u05d5\u05ea\u05e8 \u05dc-C.", PLH, None),  # Hebrew "to-C"
    ("\u6700\u7d42\u56de\u7b54\uff1aB\n\u6700\u7d42\u56de\u7b54\uff1aA", PLH, None), ("\u6700\u7ec8\u7b54\u6848\uff1aC\n\n\u6700\u7ec8\u7b54\u6848\uff1aD", PLH, None),
    ("[2, 4, 1, 3] \u2013 ale to strza\u0142 w ciemno.", OG, None), ("[4, 2, 1, 3] \u2013 obs, indexerat fr\u00e5n 0.", OG, None),
    ("[2, 4, 1, 3]\nNota: la lista indica, para cada imagen, la posici\u00f3n que ocupa en el original.", OG, None),
    ("[(2, 90), (4, 0), (1, 180), (3, 270)]\nNota: los grados son en sentido antihorario.", "order_generation_2x2_rot", None),
    ("[(3, 0), (1, 90), (4, 270), (2, 180)]\n\u6ce8\uff1a\u65cb\u8f6c\u89d2\u5ea6\u4e3a\u9006\u65f6\u9488\u65b9\u5411\u3002", "order_generation_2x2_rot", None),
    ("[(3, 90), (1, 270), (4, 0), (2, 180)] \u2014 pour la premi\u00e8re, je ne suis pas s\u00fbr.", "order_generation_2x2_rot", None),
    ("Judgment: A\nError Position:\nError Type:\n\nPrawy g\u00f3rny fragment jest odbity lustrzanie.", "anomaly_detection", None),
    ("B. Allerdings passt B an der Kante \u00fcberhaupt nicht.", "missing_piece_selection_easy", None),
    ("B\u3002\u4f46\u662fB\u7684\u7eb9\u7406\u65b9\u5411\u5b8c\u5168\u4e0d\u5bf9\uff0c\u6240\u4ee5B\u80af\u5b9a\u4e0d\u5bf9\u3002", "missing_piece_selection_easy", None),
    ("A. Although A's edge clearly doesn't line up, so it can't be A.", "missing_piece_selection_easy", None),
    ("A. A's edge doesn't line up.", "missing_piece_selection_easy", None),
    # the other side: the same shapes that commit
    ("\u6700\u7ec8\u7b54\u6848\uff1aD", PLH, "D"), ("A. A's edge lines up.", "missing_piece_selection_easy", "A"),
    ("B, weil B passt und C nicht.", "missing_piece_selection_easy", "B"),
    ("Jawaban: B. D memang mirip, tapi B lebih pas karena garis pantainya menyambung.", "missing_piece_selection_easy", "B"),
    ("D, as the blank matches the knob next to area D \u2014 not because of the color.", PLH, "D"),
    ("[2, 4, 1, 3]\n\nNota: la lista va fila por fila.", OG, "[2, 4, 1, 3]"),
])
def test_misreads_in_other_languages_aimed_at_the_rule(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("\u5e94\u8be5\u662fB\u5427\u3002", CV, "B"), ("Answer: D\u3002\u4e0d\u5bf9\uff0c\u662fA\u3002", PLH, "A"),  # "吧"; "不对，是A"
    ("\ucd5c\uc885 \ub2f5: A\n\n\ub2e4\uc2dc \ud655\uc778\ud574 \ubcf4\ub2c8 \ub3cc\uae30 \ubaa8\uc591\uc774 B \uc790\ub9ac\uc640 \ub9de\uc2b5\ub2c8\ub2e4.\n\n\ucd5c\uc885 \ub2f5: B", PLH, "B"),
    ("Slutgiltigt svar: B\n\nVid n\u00e4rmare eftertanke passar A:s flikar b\u00e4ttre.\n\nSlutgiltigt svar: A", PLH, "A"),
    ("\u041b\u0443\u0447\u0448\u0438\u0439 \u0432\u0430\u0440\u0438\u0430\u043d\u0442:\nD", PLH, "D"), ("Sagot: D. Medyo sigurado ako rito.", PLH, "D"),
    # the other side: a question particle, a zh "is" before more words, a negation
    ("\u662fB\u5417\uff1f", CV, None), ("\u56fe2\u662fA\u533a\u57df\u7684\u4e00\u90e8\u5206\u3002", PLH, None), ("\u4e0d\u662fA\u3002", PLH, None),
    ("\u6700\u7ec8\u7b54\u6848\uff1aA\n\n\u6700\u7ec8\u7b54\u6848\uff1aB", PLH, None),
])
def test_more_turns_labels_and_particles_in_other_languages(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    ("Obere Reihe: 4, 8, 2; mittlere Reihe: 9, 1, 5; untere Reihe: 6, 3, 7.", "order_generation_3x3", "[4, 8, 2, 9, 1, 5, 6, 3, 7]"),
    ("Oben: 4, 1\nUnten: 3, 2", OG, "[4, 1, 3, 2]"), ("Fila 1: 2, 4\nFila 2: 1, 3", OG, "[2, 4, 1, 3]"),
    ("Riga in alto: 2, 9, 4; riga centrale: 7, 5, 3; riga in basso: 6, 1, 8\n[2, 9, 4, 7, 5, 3, 6, 1, 8]", "order_generation_3x3",
     "[2, 9, 4, 7, 5, 3, 6, 1, 8]"),  # the rows in other languages, then the list they give
    # the other side: the rows and the list disagree, or a row is said twice
    ("\u4e0a\u6bb5\uff1a4, 7, 1\n\u4e2d\u6bb5\uff1a9, 2, 5\n\u4e0b\u6bb5\uff1a3, 8, 6\n\u7b54\u3048\uff1a[4, 7, 1, 9, 5, 2, 3, 8, 6]", "order_generation_3x3", None),
    ("Top row: 2, 9, 4; middle row: 7, 5, 3; bottom row: 6, 1, 8\n[2, 9, 4, 7, 5, 3, 6, 8, 1]", "order_generation_3x3", None),
    ("Oben: 4, 1\nOben: 3, 2", OG, None),
])
def test_rows_labelled_in_other_languages(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # a remark after a dash that says, in another language, where image 2 lies: it must agree with the letter
    ("Respuesta: D \u2014 la imagen 2 est\u00e1 justo debajo de la imagen 1.", "connection_verification_3x3_8dir", "D"),
    ("Respuesta: C \u2014 la imagen 2 est\u00e1 justo debajo de la imagen 1.", "connection_verification_3x3_8dir", None),
    ("\u041e\u0442\u0432\u0435\u0442: C \u2013 \u0438\u0437\u043e\u0431\u0440\u0430\u0436\u0435\u043d\u0438\u0435 2 \u043d\u0430\u0445\u043e\u0434\u0438\u0442\u0441\u044f "
     "\u043f\u0440\u044f\u043c\u043e \u043f\u043e\u0434 \u0438\u0437\u043e\u0431\u0440\u0430\u0436\u0435\u043d\u0438\u0435\u043c 1.", "connection_verification_3x3_8dir", None),
])
def test_a_direction_said_after_a_dash_in_another_language(text, config, answer):
    assert classify_response(text, config).answer == answer


MPS = "missing_piece_selection_easy"


@pytest.mark.parametrize("text,config,answer", [
    # a step opened by the answer ("B: ...", "B — ...") and cut off: what was said of it is not known
    ("Let's test C first. It does not work.\n\nNow B: its left edge has the same red car bumper, and the", MPS, None),
    ("Answer: B \u2014 the sky in B continues the", MPS, None),
    ("Looking at the options:\nA. [2, 4, 3, 1] - puts the", "order_restoration", None),
    # the other side: the step is finished, or the text is cut in an explanation after the answer
    ("Let's test C first. It does not work.\n\nNow B: its left edge has the same red car bumper.", MPS, "B"),
    ("Answer: B \u2014 the sky in B continues the road", MPS, "B"),
    ("Answer: B\nExplanation: the sky in B continues the", MPS, "B"),
])
def test_a_step_opened_by_the_answer_and_cut_off(text, config, answer):
    assert classify_response(text, config, ["[1, 2, 3, 4]", "[2, 4, 3, 1]", "[3, 1, 2, 4]", "[4, 3, 2, 1]"]
                             if config == "order_restoration" else None).answer == answer


@pytest.mark.parametrize("text,answer", [
    # a corner said in another language beside an order must agree with it, as the English regions must
    ("Arriba a la izquierda va la imagen 4, arriba a la derecha la 2, abajo a la izquierda la 1 y abajo a la derecha la 3. "
     "Por tanto: [4, 2, 3, 1]", None),
    ("\u5de6\u4e0a\u662f\u56fe4\u3002\n\u7b54\u6848\uff1a[1, 2, 3, 4]", None),
    # the other side: they agree
    ("Arriba a la izquierda va la imagen 4, arriba a la derecha la 2, abajo a la izquierda la 3 y abajo a la derecha la 1. "
     "Por tanto: [4, 2, 3, 1]", "[4, 2, 3, 1]"),
    ("\u5de6\u4e0a\u662f\u56fe4\u3002\n\u7b54\u6848\uff1a[4, 2, 3, 1]", "[4, 2, 3, 1]"),
])
def test_corners_said_in_another_language_beside_an_order(text, answer):
    assert classify_response(text, OG).answer == answer


@pytest.mark.parametrize("text,answer", [
    # a clause after a comma that says, in English, that the answer fits: read as its explanation
    ("D, the roof edge only fits there.", "D"),
    ("Ha, trick question? Nope \u2014 it's A, the horizon continues straight across both.", "A"),
    ("The answer is B. No wait \u2014 D, the roof edge only fits there.", "D"),
    ("The answer is B. No \u2014 D.", "D"),  # "No \u2014" after an answer withdraws it, as "No," does
    # the other side: negated, hedged, conceded, another option named, a condition on it, a question, another language
    ("D, the roof edge does not fit there.", None), ("D, the roof edge doesn't fit.", None),
    ("D, maybe the roof fits.", None), ("D, although A fits too.", None), ("D, the roof fits E better.", None),
    ("If it were D, I'd expect the roof edge to continue.", None), ("D, the roof edge only fits there?", None),
    ("D, die Dachkante passt nur dort.", None), ("B, walaupun A juga cocok.", None),
    ("B. No \u2014 it is not.", None),
])
def test_a_clause_after_a_comma_that_says_the_answer_fits(text, answer):
    assert classify_response(text, "missing_piece_selection_easy_3x3_k6").answer == answer


@pytest.mark.parametrize("text,answer", [
    # "unless I'm mistaken" and its kin, in the languages the table lists them in: a link, not a condition
    ("Unless I misread the seams, D.", "D"), ("If I'm not mistaken, D.", "D"), ("Si no me equivoco, la respuesta es D.", "D"),
    ("Sauf erreur de ma part, la r\u00e9ponse est D.", "D"), ("\u0415\u0441\u043b\u0438 \u044f \u043d\u0435 \u043e\u0448\u0438\u0431\u0430\u044e\u0441\u044c, "
     "\u043e\u0442\u0432\u0435\u0442 D.", "D"), ("\u5982\u679c\u6211\u6ca1\u770b\u9519\uff0c\u7b54\u6848\u662fD\u3002", "D"),
    ("Jeśli się nie mylę, odpowiedź to D.", "D"), ("D, unless I am mistaken.", "D"), ("D, wenn ich mich nicht irre.", "D"),
    ("Respuesta: D, si no me equivoco.", "D"),
    # the other side: a real condition, a negated answer after the idiom, a condition the idiom does not cover
    ("Si la imagen est\u00e1 rotada, la respuesta es D.", None), ("Si no me equivoco, no es D.", None),
    ("Unless the seams are misread, D.", None), ("If I am not mistaken about the sky, D.", None),
    ("Unless I misread the seams, D or B.", None), ("D, unless the patch is rotated.", None),
    ("D, unless I am mistaken about C.", None),
])
def test_unless_i_am_mistaken_in_many_languages(text, answer):
    assert classify_response(text, "piece_localization_hard").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # a decoding loop: one answer said again and again, the last copy cut off, is that answer said once
    ("[4, 1, 3, 2] [4, 1, 3, 2] [4, 1, 3, 2] [4, 1", OG, "[4, 1, 3, 2]"), ("B\nB\nB", PLH, "B"),
    ("Judgment: B\nError Position: A\nError Type: A\nJudgment: B\nError Position: A\nError Type: A\nJudgment: B\nError Pos",
     "anomaly_detection", "Judgment: B\nError Position: A\nError Type: A"),
    # the other side: the copies differ, or the last one is not a beginning of the others
    ("Answer: A\nAnswer: A\nAnswer: B", PLH, None), ("[4, 1, 3, 2] [4, 1, 3, 2] [4, 2", OG, None), ("B B C", PLH, None),
    ("Judgment: B\nError Position: A\nError Type: A\nJudgment: B\nError Position: C", "anomaly_detection", None),
])
def test_a_decoding_loop_says_its_answer_once(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    # options listed with a probability each are a list, not answers: the answer is the one committed to after it
    ("A: 5%\nB: 10%\nC: 80%\nD: 5%\n\nAnswer: C", "C"), ("C: 80%", "C"),
    ("A: 5%\nB: 10%\nC: 80%\nD: 5%", None),
])
def test_options_listed_with_a_probability_each(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # a line of known fillers closed by a colon introduces the answer below it
    ("I'm fairly confident:\nJudgment: B\nError Position: C\nError Type: A", "anomaly_detection",
     "Judgment: B\nError Position: C\nError Type: A"), ("I'm fairly confident:\nB", PLH, "B"),
    # the other side: a hedge, or a word the reader does not know, closed by a colon
    ("Maybe:\nJudgment: B\nError Position: C\nError Type: A", "anomaly_detection", None), ("Maybe:\nB", PLH, None),
    ("I'm fairly sceptical:\nB", PLH, None),
])
def test_a_line_of_fillers_closed_by_a_colon_introduces_the_answer(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    # an introducer closes at its comma: the answer said after it beside a word the reader does not know is no part
    # of it (found by the property test once its lead-ins changed)
    ("Looking at the edges, A \u092b\u093f\u0930 : Candidate 1", None), ("Looking at the edges, A \u0444\u0438\u0433: Candidate 1", None),
    ("Looking at the edges, A glede : Candidate 1", None),  # "A" beside a word: an article or the answer, not known
    # the other side: the introducer alone, or a list inside it
    ("Looking at the edges: Candidate 1", "A"), ("Looking at the sky, the roof, and the edges: A", "A"),
])
def test_an_introducer_closes_at_its_comma(text, answer):
    assert classify_response(text, "missing_piece_selection_easy_3x3_k2").answer == answer


@pytest.mark.parametrize("text,answer", [
    # this item's answer, labelled as this one's after another item's ("for this one", "这一题", "Soal ini")
    ("Earlier I answered B for the first image; for this one, D.", "D"),
    ("(Regarding your earlier question: the answer there was A.)\n\nThis one: C", "C"),
    ("\u4e0a\u4e00\u9898\u7b54\u6848\u662fD\u3002\n\u8fd9\u4e00\u9898\uff1aB", "B"), ("Soalan sebelumnya: C.\nSoalan ini: D.", "D"),
    # the other side: ruled out, hedged, negated, or only another item's answer
    ("This one: C is wrong.", None), ("This one, maybe C.", None), ("Not this one: C.", None),
    ("For the previous puzzle the answer was B. For this one I can't see the candidate images.", None),
])
def test_this_items_answer_after_another_items(text, answer):
    assert classify_response(text, "piece_localization_hard").answer == answer


@pytest.mark.parametrize("text,answer", [
    # a sentence after a piece's answer that says a piece differs, naming no other option: it may rule the answer out
    ("A \u2014 the brick colour is different.", None), ("Answer: A. Its brick colour is completely different.", None),
    ("\u041d\u0443 \u043a\u043e\u043d\u0435\u0447\u043d\u043e, \u0432\u0430\u0440\u0438\u0430\u043d\u0442 A \u2014 \u0442\u0430\u043c \u0436\u0435 "
     "\u0441\u043e\u0432\u0441\u0435\u043c \u0434\u0440\u0443\u0433\u043e\u0439 \u0446\u0432\u0435\u0442 \u043a\u0438\u0440\u043f\u0438\u0447\u0430.", None),
    # the other side: the others differ, or another option named as the one that differs
    ("A. The others have a different colour.", "A"), ("A \u2014 its colour is different from B.", "A"),
    ("**Answer: A**\n\nCandidate 1 continues the wheel. 3 and 4 show a different street entirely.", "A"),
])
def test_a_piece_said_to_differ_after_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy_3x3_k6").answer == answer


@pytest.mark.parametrize("text,answer", [
    # the anomaly block said again in words after it, in another language: an explanation that agrees
    ("Judgment: B\nError Position: C\nError Type: B\n\nLa pieza inferior izquierda est\u00e1 reflejada horizontalmente.",
     "Judgment: B\nError Position: C\nError Type: B"),
    ("Judgment: B\nError Position: B\nError Type: A\n\nLa pi\u00e8ce en haut \u00e0 droite a \u00e9t\u00e9 pivot\u00e9e de 180\u00b0.",
     "Judgment: B\nError Position: B\nError Type: A"),
    # the other side: the words name another tile or another change
    ("Judgment: B\nError Position: C\nError Type: B\n\nLa pieza superior derecha est\u00e1 reflejada horizontalmente.", None),
    ("Judgment: B\nError Position: C\nError Type: A\n\nLa pieza inferior izquierda est\u00e1 reflejada horizontalmente.", None),
])
def test_the_anomaly_said_again_in_words_after_its_block(text, answer):
    assert classify_response(text, "anomaly_detection").answer == answer


@pytest.mark.parametrize("text,answer", [
    # "no joke", "I'm not joking": said to mean the answer, not to doubt it
    ("A \u2014 no joke, the patch's shadow only fits there.", "A"),
    # the other side: a joke, or another option after it
    ("A \u2014 just kidding, the patch's shadow only fits there.", None), ("C. No joke: B fits better.", None),
    ("C. I'm not joking about B either.", None),
])
def test_no_joke_is_no_doubt(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # chat-UI residue in other languages, and a pager or a chat app's marks, on lines of their own
    ("D\n\nCopiar\nEditar\nCompartir", "D"), ("C\n\nKopieren\nTeilen\nNeu generieren\n\nChatGPT kann Fehler machen. "
                                               "\u00dcberpr\u00fcfe wichtige Informationen.", "C"),
    ("< 2/3 >\n\nC\n\nCopy code", "C"), ("H\n\n12:04\n\u2713\u2713 Read", "H"),
    # the other side: a UI word inside a sentence is a word, and an answer after the residue is still read by the rule
    ("D\n\nCopiar la D no sirve.", None), ("D\n\nCopiar\nNo, C.", "C"),
])
def test_chat_residue_in_other_languages(text, answer):
    assert classify_response(text, "connection_verification_3x3_8dir").answer == answer


@pytest.mark.parametrize("text,answer", [
    # sentences end at the other scripts' full stops too (Devanagari "\u0964", Urdu "\u06d4", Persian "\u061b"), so a
    # commitment followed by an explanation in the same script is read as two sentences, as in English
    ("\u0938\u0939\u0940 \u0909\u0924\u094d\u0924\u0930 B \u0939\u0948\u0964 \u091b\u0935\u093f \u0916\u093e\u0932\u0940 "
     "\u091c\u0917\u0939 \u0915\u0947 \u0915\u093f\u0928\u093e\u0930\u094b\u0902 \u0938\u0947 \u092a\u0942\u0930\u0940 "
     "\u0924\u0930\u0939 \u092e\u0947\u0932 \u0916\u093e\u0924\u0940 \u0939\u0948\u0964", "B"),
    ("\u067e\u0627\u0633\u062e B \u0646\u06cc\u0633\u062a\u061b \u067e\u0627\u0633\u062e \u062f\u0631\u0633\u062a D "
     "\u0627\u0633\u062a.", "D"),
    # the other side: the second sentence keeps another option open ("but maybe C too"), or is not understood
    ("\u0938\u0939\u0940 \u0909\u0924\u094d\u0924\u0930 B \u0939\u0948\u0964 \u0932\u0947\u0915\u093f\u0928 "
     "\u0936\u093e\u092f\u0926 C \u092d\u0940 \u0939\u094b \u0938\u0915\u0924\u093e \u0939\u0948\u0964", None),
    ("\u0938\u0939\u0940 \u0909\u0924\u094d\u0924\u0930 B \u0939\u0948\u0964 xyzzy C\u0964", None),
])
def test_sentences_end_at_other_scripts_full_stops(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # more tool-call formats, read by parsers: Anthropic's XML invoke (inside function_calls), Gemini's functionCall,
    # LangChain's "Invoking: ... with ..." (a Python dict, read as a literal), a call whose one argument is an object,
    # and a call followed by the tool's reply after an arrow
    ('<function_calls>\n<invoke name="submit_answer">\n<parameter name="answer">A</parameter>\n</invoke>\n'
     '</function_calls>', "A"),
    ('{"functionCall": {"name": "submit_answer", "args": {"answer": "C"}}}', "C"),
    ('{"candidates": [{"content": {"parts": [{"functionCall": {"name": "answer", "args": {"choice": "B"}}}]}}]}', "B"),
    ("> Entering new AgentExecutor chain...\n\nInvoking: `submit_answer` with `{'answer': 'D'}`\n\n\nSubmitted.", "D"),
    ('submit_answer({"answer": "A"})', "A"), ("submit_answer(answer='B') -> {'status': 'ok', 'recorded': 'B'}", "B"),
    # the other side: a call that is not a submission, an unknown argument beside the answer, a value that rules out,
    # words after the call that are not understood or withdraw it, a reply that gives another answer
    ('<invoke name="zoom"><parameter name="label">B</parameter></invoke>', None),
    ('<invoke name="submit_answer"><parameter name="answer">A</parameter><parameter name="alternative">C</parameter>'
     '</invoke>', None),
    ('<invoke name="submit_answer"><parameter name="answer">not A</parameter></invoke>', None),
    ("Invoking: `zoom` with `{'label': 'D'}`", None), ("Invoking: `submit_answer` with `{'answer': 'D', 'backup': 'B'}`",
                                                     None),
    ('{"functionCall": {"name": "zoom", "args": {"label": "C"}}}', None),
    ('submit_answer({"answer": "A", "maybe": "C"})', None), ('submit_answer({"answer": "A"}, "C")', None),
    ('submit_answer(answer="B") -> {"status": "ok"} xyzzy', None),
    ('submit_answer(answer="B") -> {"answer": "C"}', None),
    ('<invoke name="submit"><parameter name="answer">D</parameter></invoke>\nActually, B is better.', None),
])
def test_more_tool_call_formats(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # an explanation after the answer in the languages of the table: its words for image, candidate, edge and sky, and
    # for fitting, make it a known explanation of the answer
    ("R\u0103spunsul este F. Al \u0219aselea candidat completeaz\u0103 perfect col\u021bul lips\u0103 al ferestrei.", "F"),
    ("Jibu ni C. Kipande cha tatu kinaendeleza mstari wa paa.", "C"),
    ("\u7b54\u6848\uff1aB\u3002\u9019\u584a\u5716\u50cf\u4e2d\u7684\u6a39\u8449\u8207 B \u5340\u57df\u5468\u570d\u7684"
     "\u6a39\u51a0\u76f8\u9023\u3002", "B"),
    ("Answer: B. C does not match the edge.", "B"), ("Answer: B. A would need the horizon to continue sideways, which "
                                                    "it doesn't.", "B"),
    ("Answer: B. Unlike C, which matches only the sky, B completes the roof.", "B"),
    # the other side: the explanation says another option fits, in any of them: it stays open
    ("Answer: F. Candidate C completes the missing corner perfectly.", None),
    ("R\u0103spunsul este F. Candidatul C completeaz\u0103 perfect col\u021bul lips\u0103.", None),
    ("Jibu ni C. Kipande D kinaendeleza mstari wa paa.", None), ("Antwort: F. Kandidat C passt perfekt.", None),
    ("Respuesta: F. El candidato C encaja perfectamente.", None),
    # a fit granted and then ruled out in its sentence keeps nothing open (turned in the thirteenth session); a hedge
    # after the "but" still does
    ("Answer: B. C fits the colour, but its edge is off.", "B"), ("Answer: B. C fits the colour, but maybe its edge is off.", None),
    ("Answer: B. C fits the colour too.", None),
    ("\u7b54\u6848\uff1aB\u3002\u9019\u584a\u5716\u50cf\u4e2d\u7684\u6a39\u8449\u8207 C \u5340\u57df\u5468\u570d\u7684"
     "\u6a39\u51a0\u76f8\u9023\u3002", None),
])
def test_an_explanation_after_the_answer_may_not_say_another_option_fits(text, answer):
    assert classify_response(text, "missing_piece_selection_easy_3x3_k6").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # withdrawals and "no doubt" in more languages, and a subject the table lists whole before a shorter one it holds
    ("\u0110\u00e1p \u00e1n l\u00e0 B. \u00c0 kh\u00f4ng, xin l\u1ed7i, \u0111\u00e1p \u00e1n \u0111\u00fang l\u00e0 A.",
     "piece_localization_hard", "A"),
    ("A\u3067\u3059\u3002\u3044\u3084\u3001\u5f85\u3063\u3066\u304f\u3060\u3055\u3044\u3002\u3084\u306f\u308aB\u3067\u3059"
     "\u3002", "piece_localization_hard", "B"),
    ("Antwort: B. Moment \u2013 die Kanten passen nicht zusammen, der Horizont l\u00e4uft durch. Richtig ist A.",
     "connection_verification", "A"),
    ("No hay duda: la respuesta es A.", "connection_verification", "A"), ("Dit is zonder twijfel C.",
                                                                          "connection_verification", "C"),
    ("The content in <image 2> fills the masked area labeled D in <image 1>.", "piece_localization_hard", "D"),
    # the other side: no clean answer after the withdrawal, a negation after the form, an answer kept open
    ("\u0110\u00e1p \u00e1n l\u00e0 B. \u00c0 kh\u00f4ng, xin l\u1ed7i.", "piece_localization_hard", None),
    ("Richtig ist nicht A.", "connection_verification", None), ("No hay duda: la respuesta no es A.",
                                                                 "connection_verification", None),
    ("Sin duda, la respuesta es A o C.", "connection_verification", None),
    ("The content in <image 2> does not fill the masked area labeled D.", "piece_localization_hard", None),
    # found by the property test once the table grew: "A, не C" ("A, not C") does not reach over a line break
    ("\u041e\u0442\u0432\u0435\u0442: **A \u043d\u0435 **\nC is wrong.", "connection_verification", None),
    ("\u041e\u0442\u0432\u0435\u0442: A \u043d\u0435 C.", "connection_verification", "A"),
])
def test_withdrawals_and_no_doubt_in_more_languages(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    # first-person choices in the languages that say them after the answer (Hindi, Persian, Urdu, Bengali) or with a
    # preposition (Hebrew, Tagalog); a Devanagari full stop ends a word, so "... चुनता हूँ।" is the form and its stop
    ("\u092e\u0948\u0902 C \u091a\u0941\u0928\u0924\u093e \u0939\u0942\u0901\u0964", "C"),
    ("\u0645\u0646 C \u0631\u0627 \u0627\u0646\u062a\u062e\u0627\u0628 \u0645\u06cc\u200c\u06a9\u0646\u0645.", "C"),
    ("\u0622\u0645\u06cc C", None),
    ("\u0986\u09ae\u09bf C \u09ac\u09c7\u099b\u09c7 \u09a8\u09bf\u099a\u09cd\u099b\u09bf\u0964", "C"),
    ("\u05d0\u05e0\u05d9 \u05d1\u05d5\u05d7\u05e8 \u05d1-C.", "C"), ("Pinipili ko ang C.", "C"),
    # the other side: a negation in the form, or another answer kept open after it
    ("\u092e\u0948\u0902 C \u0928\u0939\u0940\u0902 \u091a\u0941\u0928\u0924\u093e \u0939\u0942\u0901\u0964", None),
    ("\u092e\u0948\u0902 C \u091a\u0941\u0928\u0924\u093e \u0939\u0942\u0901, \u0936\u093e\u092f\u0926 D \u092d\u0940\u0964",
     None),
    ("\u0986\u09ae\u09bf C \u09ac\u09c7\u099b\u09c7 \u09a8\u09bf\u099a\u09cd\u099b\u09bf \u09a8\u09be\u0964", None),
])
def test_first_person_choices_said_after_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # a note after an order that says the prompt's own convention, in other languages; chat-UI residue in more
    ("[(4, 0), (3, 90), (1, 180), (2, 0)]\nLet op: draaiing met de klok mee.", "order_generation_2x2_rot",
     "[(4, 0), (3, 90), (1, 180), (2, 0)]"),
    ("[1, 4, 3, 2]\nL\u01b0u \u00fd: th\u1ee9 t\u1ef1 theo h\u00e0ng, t\u1eeb tr\u00e1i sang ph\u1ea3i, t\u1eeb tr\u00ean "
     "xu\u1ed1ng d\u01b0\u1edbi.", "order_generation", "[1, 4, 3, 2]"),
    ("\u0391\u03c0\u03ac\u03bd\u03c4\u03b7\u03c3\u03b7: B\n\n\u0391\u03bd\u03c4\u03b9\u03b3\u03c1\u03b1\u03c6\u03ae\n"
     "\u039a\u03bf\u03b9\u03bd\u03bf\u03c0\u03bf\u03af\u03b7\u03c3\u03b7", "piece_localization_easy", "B"),
    # the other side: the note says another convention
    ("[(4, 0), (3, 90), (1, 180), (2, 0)]\nLet op: draaiing tegen de klok in.", "order_generation_2x2_rot", None),
    ("[(4, 0), (3, 90), (1, 180), (2, 0)]\n\u6ce8\uff1a\u53cd\u6642\u8a08\u56de\u308a", "order_generation_2x2_rot", None),
    ("[1, 4, 3, 2]\nL\u01b0u \u00fd: th\u1ee9 t\u1ef1 theo c\u1ed9t.", "order_generation", None),
])
def test_convention_notes_and_residue_in_more_languages(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    # "I think it is B", "final answer" and "option B is correct" in more languages
    ("Penso che sia B.", "B"), ("B\uc778 \uac83 \uac19\uc2b5\ub2c8\ub2e4.", "B"), ("Menurut saya B.", "B"),
    ("\u0623\u0639\u062a\u0642\u062f \u0623\u0646\u0647\u0627 B.", "B"), ("Ik denk dat het B is.", "B"),
    ("Jag tror att det \u00e4r B.", "B"), ("\u039d\u03bf\u03bc\u03af\u03b6\u03c9 \u03cc\u03c4\u03b9 \u03b5\u03af\u03bd\u03b1\u03b9 "
                                         "\u03c4\u03bf B.", "B"),
    ("Cred c\u0103 este B.", "B"), ("\u05d0\u05e0\u05d9 \u05d7\u05d5\u05e9\u05d1 \u05e9\u05d6\u05d4 B.", "B"),
    ("\u0414\u0443\u043c\u0430\u044e, \u0449\u043e \u0446\u0435 B.", "B"), ("Sa tingin ko ay B.", "B"),
    ("Nadhani ni B.", "B"), ("Definitief antwoord: B", "B"), ("Slutligt svar: B", "B"),
    ("\u0397 \u03b5\u03c0\u03b9\u03bb\u03bf\u03b3\u03ae B \u03b5\u03af\u03bd\u03b1\u03b9 \u03b7 \u03c3\u03c9\u03c3\u03c4\u03ae.",
     "B"), ("\uc120\ud0dd\uc9c0 B\uac00 \uc815\ub2f5\uc785\ub2c8\ub2e4.", "B"),
    # the other side: a negation, a second answer, a hedge or a condition beside it
    ("Ik denk dat het niet B is.", None), ("Penso che sia B o C.", None), ("Jag tror att det \u00e4r B eller C.", None),
    ("\u039d\u03bf\u03bc\u03af\u03b6\u03c9 \u03cc\u03c4\u03b9 \u03b5\u03af\u03bd\u03b1\u03b9 \u03c4\u03bf B, \u03af\u03c3\u03c9\u03c2 "
     "\u03c4\u03bf C.", None),
    ("\u0397 \u03b5\u03c0\u03b9\u03bb\u03bf\u03b3\u03ae B \u03b4\u03b5\u03bd \u03b5\u03af\u03bd\u03b1\u03b9 \u03b7 "
     "\u03c3\u03c9\u03c3\u03c4\u03ae.", None),
    ("\uc120\ud0dd\uc9c0 B\uac00 \uc815\ub2f5\uc774 \uc544\ub2d9\ub2c8\ub2e4.", None), ("Nadhani si B.", None),
])
def test_i_think_it_is_b_in_more_languages(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # other options said not to fit after the answer, in the table's languages: rejected, so the answer stands
    ("Antwort: B. A und C passen nicht.", "B"), ("R\u00e9ponse : B. A et C ne correspondent pas.", "B"),
    ("\u041e\u0442\u0432\u0435\u0442: B. A \u0438 C \u043d\u0435 \u043f\u043e\u0434\u0445\u043e\u0434\u044f\u0442.", "B"),
    ("\u7b54\u6848\uff1aB\u3002A\u548cC\u90fd\u4e0d\u5339\u914d\u3002", "B"), ("Jawaban: B. A dan C tidak cocok.", "B"),
    ("R\u0103spuns: B. A \u0219i C nu se potrivesc.", "B"), ("Svar: B. A och C passar inte.", "B"),
    # the other side: "not bad" is praise, and another option said to fit keeps it open
    ("\u7b54\u6848\uff1aB\u3002C\u4e5f\u4e0d\u9519\u3002", None), ("Antwort: B. C passt auch nicht schlecht.", None),
    ("Respuesta: B. A no encaja, pero C s\u00ed encaja.", None),
])
def test_other_options_said_not_to_fit_in_other_languages(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # Connection Verification's relations in more languages (Swedish, Czech, Greek, Romanian, Hebrew now have rows), and
    # the longest form wins over the English word inside it ("adjacentes na vertical" over "vertical")
    ("As duas imagens s\u00e3o adjacentes na vertical.", "B"), ("Cele dou\u0103 imagini sunt adiacente vertical.", "B"),
    ("Bilderna ligger vertikalt intill varandra.", "B"), ("Oba obr\u00e1zky soused\u00ed svisle.", "B"),
    ("\u03a3\u03b5 \u03b1\u03c5\u03c4\u03ae: \u039f\u03b9 \u03b4\u03cd\u03bf \u03b5\u03b9\u03ba\u03cc\u03bd\u03b5\u03c2 \u03b4\u03b5\u03bd "
     "\u03b5\u03af\u03bd\u03b1\u03b9 \u03b3\u03b5\u03b9\u03c4\u03bf\u03bd\u03b9\u03ba\u03ad\u03c2.", None),
    ("\u039f\u03b9 \u03b4\u03cd\u03bf \u03b5\u03b9\u03ba\u03cc\u03bd\u03b5\u03c2 \u03b4\u03b5\u03bd \u03b5\u03af\u03bd\u03b1\u03b9 "
     "\u03b3\u03b5\u03b9\u03c4\u03bf\u03bd\u03b9\u03ba\u03ad\u03c2.", "C"),
    ("\u05e9\u05ea\u05d9 \u05d4\u05ea\u05de\u05d5\u05e0\u05d5\u05ea \u05e6\u05de\u05d5\u05d3\u05d5\u05ea \u05d0\u05e0\u05db\u05d9"
     "\u05ea.", "B"), ("Bilderna ligger bredvid varandra.", "A"),
    # the other side: the relation negated, or said with a word the reader does not know
    ("Bilderna ligger inte vertikalt intill varandra.", None),
    ("\u039f\u03b9 \u03b4\u03cd\u03bf \u03b5\u03b9\u03ba\u03cc\u03bd\u03b5\u03c2 \u03b4\u03b5\u03bd \u03b5\u03af\u03bd\u03b1\u03b9 "
     "\u03ba\u03b1\u03c4\u03b1\u03ba\u03cc\u03c1\u03c5\u03c6\u03b1 \u03b3\u03b5\u03b9\u03c4\u03bf\u03bd\u03b9\u03ba\u03ad\u03c2.", None),
    ("Oba obr\u00e1zky nejsou vedle sebe.", None), ("Cele dou\u0103 imagini xyzzy adiacente vertical.", None),
])
def test_connection_relations_in_more_languages(text, answer):
    assert classify_response(text, "connection_verification").answer == answer


@pytest.mark.parametrize("text,answer", [
    # Piece Localization's "the piece belongs to area C" in the table's languages
    ("El fragmento pertenece al \u00e1rea C.", "C"), ("Das Teil geh\u00f6rt in Bereich C.", "C"),
    ("\u0424\u0440\u0430\u0433\u043c\u0435\u043d\u0442 \u043e\u0442\u043d\u043e\u0441\u0438\u0442\u0441\u044f \u043a "
     "\u043e\u0431\u043b\u0430\u0441\u0442\u0438 C.", "C"),
    ("\u8be5\u56fe\u50cf\u5757\u5c5e\u4e8e\u533a\u57dfC\u3002", "C"),
    ("\u3053\u306e\u65ad\u7247\u306f\u9818\u57dfC\u306b\u5c5e\u3057\u307e\u3059\u3002", "C"),
    ("Parça C alan\u0131na ait.", "C"), ("Fragment pochodzi z obszaru C.", "C"), ("Biten h\u00f6r till omr\u00e5de C.", "C"),
    ("\u05d4\u05d7\u05dc\u05e7 \u05e9\u05d9\u05d9\u05da \u05dc\u05d0\u05d6\u05d5\u05e8 C.", "C"),
    # the other side: negated, or another area kept open
    ("El fragmento no pertenece al \u00e1rea C.", None), ("Das Teil geh\u00f6rt nicht in Bereich C.", None),
    ("\u3053\u306e\u65ad\u7247\u306f\u9818\u57dfC\u306b\u5c5e\u3057\u307e\u305b\u3093\u3002", None),
    ("Parça C alan\u0131na ait de\u011fil.", None), ("Fragment nie pochodzi z obszaru C.", None),
    ("El fragmento pertenece al \u00e1rea C o D.", None), ("\u8be5\u56fe\u50cf\u5757\u4e0d\u5c5e\u4e8e\u533a\u57dfC\u3002", None),
])
def test_the_piece_belongs_to_an_area_in_other_languages(text, answer):
    assert classify_response(text, "piece_localization_hard").answer == answer


@pytest.mark.parametrize("text,answer", [
    # Missing Piece Selection's "the third candidate fits" in more languages (candidates and ordinals now in 24)
    ("Le troisi\u00e8me candidat correspond.", "C"), ("De derde kandidaat past.", "C"), ("Pasuje trzeci kandydat.", "C"),
    ("Den tredje kandidaten passar.", "C"), ("T\u0159et\u00ed kandid\u00e1t pasuje.", "C"),
    ("Al treilea candidat se potrive\u0219te.", "C"),
    ("\u0422\u0440\u0435\u0442\u0456\u0439 \u043a\u0430\u043d\u0434\u0438\u0434\u0430\u0442 \u043f\u0456\u0434\u0445\u043e\u0434"
     "\u0438\u0442\u044c.", "C"),
    # the other side: negated, or another candidate kept open
    ("Le troisi\u00e8me candidat ne correspond pas.", None), ("De derde kandidaat past niet.", None),
    ("Nie pasuje trzeci kandydat.", None), ("Den tredje kandidaten passar inte.", None),
    ("Der dritte Kandidat passt, aber der vierte auch.", None),
])
def test_the_third_candidate_fits_in_more_languages(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # Anomaly Detection's tile and change said in more languages (places for cs, ro, fa; more for vi, el, ar)
    ("\u03a4\u03bf \u03c0\u03ac\u03bd\u03c9 \u03b1\u03c1\u03b9\u03c3\u03c4\u03b5\u03c1\u03cc \u03ba\u03bf\u03bc\u03bc\u03ac\u03c4\u03b9 "
     "\u03b5\u03af\u03bd\u03b1\u03b9 \u03c0\u03b5\u03c1\u03b9\u03c3\u03c4\u03c1\u03b1\u03bc\u03bc\u03ad\u03bd\u03bf.",
     "Judgment: B\nError Position: A\nError Type: A"),
    ("Piesa din st\u00e2nga sus este rotit\u0103.", "Judgment: B\nError Position: A\nError Type: A"),
    ("M\u1ea3nh tr\u00ean b\u00ean tr\u00e1i b\u1ecb xoay.", "Judgment: B\nError Position: A\nError Type: A"),
    # the other side: negated
    ("\u03a4\u03bf \u03c0\u03ac\u03bd\u03c9 \u03b1\u03c1\u03b9\u03c3\u03c4\u03b5\u03c1\u03cc \u03ba\u03bf\u03bc\u03bc\u03ac\u03c4\u03b9 "
     "\u03b4\u03b5\u03bd \u03b5\u03af\u03bd\u03b1\u03b9 \u03c0\u03b5\u03c1\u03b9\u03c3\u03c4\u03c1\u03b1\u03bc\u03bc\u03ad\u03bd\u03bf.",
     None),
    ("Piesa din st\u00e2nga sus nu este rotit\u0103.", None),
])
def test_the_changed_tile_in_more_languages(text, answer):
    assert classify_response(text, "anomaly_detection").answer == answer


@pytest.mark.parametrize("text,answer", [
    # a contrast word turns to a later answer only when it says something on the way ("but looking again")
    ("B. But looking again at the seam, D.", "D"), ("B. But actually D.", "D"),
    # the other side: "but" and nothing else between two answers leaves both open
    ("B, but D.", None), ("B but D", None), ("B. But D.", None), ("Answer: B, but D.", None),
])
def test_a_bare_contrast_between_two_answers_is_no_turn(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


@pytest.mark.parametrize("text,answer", [
    # another option said before the answer to fit as a whole, and never withdrawn: the text gives two answers
    ("C fits best.\nAnswer: D", None), ("Candidate C continues the wall seamlessly.\nAnswer: D", None),
    ("Kandidat 3 setzt die Mauer nahtlos fort.\nAntwort: D", None), ("B fits perfectly.\n\n**Answer:** D", None),
    # the other side: one feature matched, granted and rejected, conditional, withdrawn, beside another option
    ("A matches the sky colour. The roof edge continues only in D.\nAnswer: D", "D"),
    ("B matches the sky.\n\nAnswer: D", "D"), ("B fits the gap perfectly but its colour is too dark.\nAnswer: D", "D"),
    ("B would fit perfectly if it were mirrored.\nAnswer: D", "D"), ("B fits perfectly. Wait, no. D.", "D"),
    ("B and D both continue the railing perfectly; the thickness is right only in D.\nAnswer: D", "D"),
])
def test_another_option_said_to_fit_wholly_before_the_answer(text, answer):
    assert classify_response(text, "missing_piece_selection_easy").answer == answer


def _relative_preds():
    from jigsaw_puzzles.scoring.extraction.forms import forms
    return sorted(f for f in forms("pred") if f.rstrip().split(" ")[-1] in ("that", "which", "whose", "where", "with"))


@pytest.mark.parametrize("form", _relative_preds())
def test_what_follows_the_one_that_is_read_on_both_sides(form):
    # every commit form that ends in a relative ("B is the one that ...") or "with": what follows it says whether the
    # answer is chosen. A fit is read; a negation, doubt, hedge, judgement against or ranking last never is.
    for rest in ("doesn't fit", "does not match the sky", "is wrong", "I would reject", "fits worst", "might fit",
                 "is least likely", "is incorrect", "no one would pick", "cannot be right", "a wrong colour",
                 "clashes with the sky", "stands out from the rest", "differs in colour", "looks out of place"):
        assert classify_response(f"B {form} {rest}.", "missing_piece_selection_easy").answer is None, rest
    assert classify_response(f"B {form} the roof line continues.", "missing_piece_selection_easy").answer == "B"


@pytest.mark.parametrize("text,config,answer", [
    # the answer said again with its subject, then a remark after a colon: the remark is read as its explanation
    ("Answer: C. The two pieces are not adjacent: their edges share no lines or continuing objects.",
     "connection_verification", "C"),
    ("\u041e\u0442\u0432\u0435\u0442: C. \u042d\u0442\u0438 \u0444\u0440\u0430\u0433\u043c\u0435\u043d\u0442\u044b \u043d\u0435 "
     "\u0441\u043e\u0441\u0435\u0434\u0441\u0442\u0432\u0443\u044e\u0442: \u043d\u0430 \u0438\u0445 \u043a\u0440\u0430\u044f\u0445 "
     "\u043d\u0435\u0442 \u043e\u0431\u0449\u0438\u0445 \u043b\u0438\u043d\u0438\u0439.", "connection_verification", "C"),
    ("Resposta final: D. O candidato 4 preenche a \u00e1rea em branco com a mesma textura de grama.",
     "missing_piece_selection_hard", "D"),
    ('{"tool": "submit_answer", "tool_input": {"answer": "C"}}', "missing_piece_selection_easy", "C"),
    ("The top-right tile is upside down, while the other three look normal.", "anomaly_detection",
     "Judgment: B\nError Position: B\nError Type: A"),
    ("Sub-image E is mirrored. So the stitched image is incorrect.", "anomaly_detection_3x3",
     "Judgment: B\nError Position: E\nError Type: B"),
    ("A. B was the only real competitor and it fails on the brick.", "missing_piece_selection_easy", "A"),
    # the other side: the remark doubts the answer or keeps another open; the tile negated; the rival kept open
    ("Answer: C. The two pieces are not adjacent: I am not sure at all.", "connection_verification", None),
    ("Answer: C. They are not adjacent: maybe B.", "connection_verification", None),
    ("Resposta final: D. O candidato 2 preenche a \u00e1rea em branco.", "missing_piece_selection_hard", None),
    ("The top-right tile is not upside down, while the other three look normal.", "anomaly_detection", None),
    ("Everything lines up. So the stitched image is incorrect.", "anomaly_detection", None),
    ("A. B was the main rival, and honestly it might be right.", "missing_piece_selection_easy", None),
])
def test_restated_answers_remarks_and_rivals(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # from dev_32: confidence words, elimination, a better choice, Malay and Turkish forms, app residue
    ("Tentatively D.", "missing_piece_selection_easy", "D"),
    ("None of them fits the gap, so by elimination it has to be Candidate 2: **B**.", "missing_piece_selection_easy", "B"),
    ("B.\n\nOn reflection, the grain in C actually lines up better. C is the stronger choice.",
     "missing_piece_selection_easy", "C"),
    ("\u03a0\u03b9\u03b8\u03b1\u03bd\u03cc\u03c4\u03b1\u03c4\u03b1 \u03b7 \u03b1\u03c0\u03ac\u03bd\u03c4\u03b7\u03c3\u03b7 "
     "\u03b5\u03af\u03bd\u03b1\u03b9 \u03c4\u03bf D, \u03b1\u03bd \u03ba\u03b1\u03b9 \u03b4\u03b5\u03bd \u03b5\u03af\u03bc\u03b1\u03b9 "
     "\u03b1\u03c0\u03cc\u03bb\u03c5\u03c4\u03b1 \u03c3\u03af\u03b3\u03bf\u03c5\u03c1\u03bf\u03c2.", "missing_piece_selection_easy", "D"),
    ("Jawapannya ialah C. Tunggu, saya silap: jawapan sebenar ialah D.", "missing_piece_selection_easy", "D"),
    ("Do\u011fru s\u0131ralama: [3, 1, 2, 4].", "order_generation", "[3, 1, 2, 4]"),
    ("< 2 / 3 >\n\npython\nCopy code\n[3, 1, 2, 4]", "order_generation", "[3, 1, 2, 4]"),
    ("Assistant  \u2022  11:07\n[3, 1, 2, 4]\n\u2713 Copied to clipboard", "order_generation", "[3, 1, 2, 4]"),
    # the other side
    ("C is the better choice, or maybe B.", "missing_piece_selection_easy", None),
    ("Answer: B. saya mungkin silap C.", "missing_piece_selection_easy", None),
    ("By elimination it is not B.", "missing_piece_selection_easy", None),
    ("Tentatively D, or C.", "missing_piece_selection_easy", None),
])
def test_what_dev_32_taught(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    # Anthropic's content blocks: a text block that gives no answer is the reasoning beside the tool call
    ('[{"type": "text", "text": "The tower tip goes top-right."}, {"type": "tool_use", "id": "toolu_01", '
     '"name": "submit_answer", "input": {"order": [2, 4, 1, 3]}}]', "[2, 4, 1, 3]"),
    # the other side: a text block that gives another answer, two tool calls that disagree
    ('[{"type": "text", "text": "The answer is [1, 2, 3, 4]."}, {"type": "tool_use", "id": "toolu_01", '
     '"name": "submit_answer", "input": {"order": [2, 4, 1, 3]}}]', None),
    ('[{"type": "tool_use", "name": "submit_answer", "input": {"order": [2, 4, 1, 3]}}, '
     '{"type": "tool_use", "name": "submit_answer", "input": {"order": [1, 2, 3, 4]}}]', None),
])
def test_content_blocks_beside_a_tool_call(text, answer):
    assert classify_response(text, "order_generation").answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # an offer after the answer, also one that ends without a question mark, is residue
    ("[2, 4, 1, 3] \u2014 let me know if you'd like me to walk through how I got there.", "order_generation", "[2, 4, 1, 3]"),
    ("[2, 4, 1, 3]\n\nLet me know if you have more puzzles!", "order_generation", "[2, 4, 1, 3]"),
    ("[2, 4, 1, 3]. Would you like me to explain why?", "order_generation", "[2, 4, 1, 3]"),
    # the other side: an offer that names another answer (a list too) is no residue; nor one that disagrees
    ("[2, 4, 1, 3]. Want me to go with [1, 2, 3, 4]?", "order_generation", None),
    ("[2, 4, 1, 3]. Would you like me to show [1, 2, 3, 4]?", "order_generation", None),
    ("[2, 4, 1, 3]. Let me know if you need [1, 2, 3, 4].", "order_generation", None),
    ("[2, 4, 1, 3]. Let me know if you'd like the other order instead.", "order_generation", None),
    # from dev_33: a place said with "it's from"; reasoning that says another option fits wholly ("of" is no "or")
    ("So it's from D.", "piece_localization_hard", "D"),
    ("So it's from D.\n\nB", "piece_localization_hard", None),
    ("Candidate 3's left edge continues the road perfectly, and the lighting matches the rest of the scene.\n\n"
     "Answer: A", "missing_piece_selection_easy", None),
    ("Image 2 continues directly below image 1.", "connection_verification", "B"),
])
def test_offers_places_and_reasoning_that_disagrees(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # from dev_33: a winner named after a runner-up; a tail that sticks with the answer; a comment that keeps the convention
    ("B is the runner-up; the clear winner is A, since the striped awning continues.", "piece_localization_hard", "A"),
    ("\u4e0d\u662fA\uff0c\u4e5f\u4e0d\u662fC\uff0c\u7b54\u6848\u662fB\u3002", "piece_localization_hard", "B"),
    ("\u4e0d\u662fA\uff0c\u4e5f\u662fC\uff0c\u7b54\u6848\u662fB\u3002", "piece_localization_hard", None),
    ("B. Final answer, and I'm sticking with it \U0001f604", "order_restoration", "B"),
    ("[(3, 0), (1, 270), (4, 90), (2, 180)]  # degrees clockwise, as asked", "order_generation_2x2_rot",
     "[(3, 0), (1, 270), (4, 90), (2, 180)]"),
    # the other side
    ("The winner is not A.", "piece_localization_hard", None),
    ("The clear winner is A or B.", "piece_localization_hard", None),
    ("[(3, 0), (1, 270), (4, 90), (2, 180)]  # degrees counterclockwise", "order_generation_2x2_rot", None),
])
def test_what_dev_33_taught(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # from dev_34: the worst named after the best; a guess after a refusal; an assumption then "on that basis"; residue
    ("**Best match:** D \u2014 the tiled floor pattern continues without a seam.\n**Worst match:** A \u2014 wrong colour "
     "temperature entirely.", "missing_piece_selection_hard", "D"),
    ("Worst: A\nBest: D", "missing_piece_selection_hard", "D"),
    ("I can't actually view the images you attached, so this is a guess: B.", "piece_localization_hard", "B"),
    ("I'll assume the areas are labelled left to right. On that basis the patch belongs to area C.",
     "piece_localization_hard", "C"),
    ("The answer is D\u00b9\n\n\u00b9 Based on the colour continuity of the sky.\n\nEdited \u00b7 2 min ago\n\n"
     "\U0001f44d 0  \U0001f4ac Reply", "missing_piece_selection_hard", "D"),
    ("[(3, 270), (1, 0), (4, 180), (2, 90)]\n\nCopy\n\nDeepSeek-V3 \u00b7 2.1s\n\nNew chat\n\nAI-generated, for reference only",
     "order_generation_2x2_rot", "[(3, 270), (1, 0), (4, 180), (2, 90)]"),
    ("Sub-image E (the centre one) is upside down; it has been rotated 180\u00b0.", "anomaly_detection_3x3",
     "Judgment: B\nError Position: E\nError Type: A"),
    # the other side
    ("Best: D or C\nWorst: A", "missing_piece_selection_hard", None),
    ("D.\nWorst match: A. Actually, B or C.", "missing_piece_selection_hard", None),
    ("Best: D\nWorst: D", "missing_piece_selection_hard", None),
    ("B\n\n2 min ago maybe C", "piece_localization_hard", None),
    ("Sub-image E is upside down; it has been mirrored.", "anomaly_detection_3x3", None),
    ("Sub-image E is upside down; it has not been rotated.", "anomaly_detection_3x3", None),
])
def test_what_dev_34_taught(text, config, answer):
    assert classify_response(text, config).answer == answer


@pytest.mark.parametrize("text,answer", [
    # a place label with "the one ..." after it, or a bold answer and a full stop; "I get the same:"; "my best reading:"
    ("Masked area A, the one by the window.", "A"),
    ("Region **B**. The patch has the corner of the blue door, and B is the only masked area next to the doorway.", "B"),
    ("GPT said C in the other tab. I get the same: C.", "C"),
    ("I can't be certain from such a compressed image, but here's my best reading:\n\nB", "B"),
    # the other side
    ("Masked area A, the one I would not choose.", None), ("Masked area A, the one by the window, or maybe C.", None),
    ("Region **B**. Or C.", None), ("Region B, the one that is wrong.", None), ("I get the same: C or D.", None),
])
def test_place_labels_with_a_remark_and_agreement(text, answer):
    assert classify_response(text, "piece_localization_hard").answer == answer


@pytest.mark.parametrize("text,options,answer", [
    # pieces placed as bare numbers ("1 top+left, 3 top+right, ...") must agree with the option chosen
    ("Flat edges: 1 top+left, 3 top+right, 2 bottom+left, 4 bottom+right \u2192 option A.",
     ["[1, 3, 2, 4]", "[2, 1, 3, 4]", "[3, 4, 1, 2]", "[4, 2, 1, 3]"], "A"),
    ("Flat edges: 1 top+left, 3 top+right, 2 bottom+left, 4 bottom+right \u2192 option A.",
     ["[2, 1, 3, 4]", "[1, 3, 2, 4]", "[3, 4, 1, 2]", "[4, 2, 1, 3]"], None),
    ("3 top-left, 1 top-right.\nAnswer: B", ["[2, 1, 3, 4]", "[1, 3, 2, 4]", "[3, 4, 1, 2]", "[4, 2, 1, 3]"], None),
    ("3 top-left, 4 top-right.\nAnswer: C", ["[2, 1, 3, 4]", "[1, 3, 2, 4]", "[3, 4, 1, 2]", "[4, 2, 1, 3]"], "C"),
])
def test_pieces_placed_as_bare_numbers_agree_with_the_option(text, options, answer):
    assert classify_response(text, "order_restoration", options).answer == answer


@pytest.mark.parametrize("text,config,answer", [
    # a remark after a dash is an explanation when it says something: a word of fit, a restatement, a clause of its
    # own, or known words (a confidence note)
    ("B \u2014 the sky matches.", MPS, "B"),
    ("B \u2014 the one with the bicycle wheel in it", MPS, "B"),
    ("D \u2014 moderately confident (maybe 60%).", "piece_localization_hard", "D"),
    ("D is the one that fits \u2014 no hesitation.", MPS, "D"),
    ("\u041d\u0435 C, \u0430 B \u2014 \u043f\u0440\u0430\u0432\u0438\u043b\u044c\u043d\u044b\u0439 \u043e\u0442\u0432\u0435\u0442 B.",
     "piece_localization_hard", "B"),
    ("1. A \u2013 washed out\n2. B \u2013 cropped\n3. C \u2013 seamless\nSo: C", MPS, "C"),
    # the other side: a word or two the reader does not know, or a shrug, is no reason: the answer is not read, and
    # it still stands against a later other answer, in the reasoning before </think> too
    ("B \u2014 glorp.", MPS, None),
    ("B \u2014 idk", MPS, None),
    ("B \u2014 \u00af\\_(\u30c4)_/\u00af", MPS, None),
    ("B \u2014 I am not sure, glorp.", MPS, None),
    ("The answer is B \u2014 zonk.", MPS, None),
    ("A \u2014 maybe.\nAnswer: B", MPS, None),
    ("Final answer: B \u2014 glorp\n\nFinal answer: D", MPS, None),
    ("<think>So the answer is A \u2014 glorp.</think>\n<answer>C</answer>", MPS, None),
    ("Final answer: B\nWait, that's wrong.\nFinal answer:  ? A", MPS, None),  # a stray mark after the label
    ("Which candidate fits? A", MPS, "A"),
])
def test_a_remark_after_a_dash_must_say_something(text, config, answer):
    ex = classify_response(text, config)
    assert ex.answer == answer, ex.detail
    if answer is None:
        assert ex.detail


@pytest.mark.parametrize("text,config,answer", [
    # from dev_38 and dev_39 (sixteenth session): each read, and its other side left unread
    ("Answer: C\nThe two images are not adjacent. No line or colour continues from one to the other.",
     "connection_verification", "C"),
    ("Action: submit_answer(option=\"Option B\")\nObservation: Error: answer must be a single letter A-D.\n"
     "Thought: Candidate 3 is option C.\nAction: submit_answer(option=\"C\")", MPS, "C"),
    ("Action: submit_answer(option=\"B\")\nObservation: Answer recorded.", MPS, "B"),
    ("Calling tool: submit_answer\nArguments: {\"answer\": \"B\"}", MPS, "B"),
    ("Calling tool: zoom\nArguments: {\"label\": \"B\"}", MPS, None),  # not a submission
    ("Calling tool: submit_answer\nArguments: {\"answer\": \"B\"}\nResult: Error: invalid\nCalling tool: "
     "submit_answer\nArguments: {\"answer\": \"C\"}", MPS, "C"),
    ("Step 3 \u2014 final_answer(\"B\")", "piece_localization_easy", "B"),
    ("Step 3 \u2192 submit(\"B\")\nStep 4 \u2192 Observation: error, not a valid option\nStep 5 \u2192 submit(\"C\")",
     "piece_localization_hard", "C"),  # one step label, shared by the harness lines and the refused submission
    ("Step 3 \u2192 submit(\"B\")\nStep 4 \u2192 Observation: accepted", "piece_localization_hard", "B"),
    ("Step 3 \u2014 final_answer(\"B\") \u2014 not really", "piece_localization_easy", None),
    ("Sticking with C.", "piece_localization_hard", "C"),
    ("The answer is B. On a second look, it is C.", "piece_localization_hard", "C"),
    ("\uc815\ub2f5\uc740 A\uc785\ub2c8\ub2e4. \uc544, \ub2e4\uc2dc \ubcf4\ub2c8 A\uac00 \uc544\ub2c8\ub77c D\ub124\uc694.",
     "piece_localization_hard", "D"),
    ("None of the tiles appears turned or flipped.", "anomaly_detection", "Judgment: A\nError Position:\nError Type:"),
    ("None of the pieces seems rotated or mirrored, maybe.", "anomaly_detection", None),
    ("order = [2, 1, 4, 3]  # TL, TR, BL, BR", "order_generation", "[2, 1, 4, 3]"),
    ("[2, 1, 4, 3]  # TL, BL, TR, BR", "order_generation", None),
    ("[3, 1, 2, 6, 5, 4, 9, 8, 7]\n\nThe middle row is 6, 3, 4 and the bottom row 9, 8, 7.", "order_generation_3x3", None),
    ("[3, 1, 2, 6, 5, 4, 9, 8, 7]\n\nThe middle row is 6, 5, 4 and the bottom row is 9, 8, 7.", "order_generation_3x3",
     "[3, 1, 2, 6, 5, 4, 9, 8, 7]"),
    ("The patch that completes the picture is **F** \u2014 the ivy continues across its top edge.",
     "missing_piece_selection_easy_3x3_k6", "F"),
    ("The patch that completes the picture is F or E.", "missing_piece_selection_easy_3x3_k6", None),
    ("**Answer: B**\n\nWhy the others fail:\n- **C** came closest \u2014 the water colour is a good match \u2014 but it "
     "has a post that would float with nothing below it.", MPS, "B"),
    ("Judgment: B\nError Position: I\nError Type: A\n\n\u53f3\u4e0b\u89d2\uff08I\uff09\u7684\u5c0f\u56fe\u88ab\u65cb\u8f6c"
     "\u4e86180\u5ea6\u3002", "anomaly_detection_3x3", "Judgment: B\nError Position: I\nError Type: A"),
    ("The seams blur. For now, based on what I can see:\n\nJudgment: A\nError Position:\nError Type:",
     "anomaly_detection", "Judgment: A\nError Position:\nError Type:"),
    ("The seams blur. If the sky is on top, based on what I see:\n\nJudgment: A\nError Position:\nError Type:",
     "anomaly_detection", None),
])
def test_sixteenth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config)
    assert ex.answer == answer, ex.detail


@pytest.mark.parametrize("text,config,answer", [
    # an explanation in other languages: Arabic "، ف..." ("so/for ..."), a Romanian confidence note
    ("الإجابة هي B، فالصورة "
     "الثانية تقع مباشرةً إلى "
     "يسار الصورة الأولى.", "connection_verification_3x3_8dir", "B"),
    ("Cred c\u0103 este D, de\u0219i nu sunt complet sigur.", MPS, "D"),
    # the other side: the explanation names another answer as kept open; an unknown note
    ("الإجابة هي B، فالصورة "
     "الثانية ربما C.", "connection_verification_3x3_8dir", None),
    ("Cred c\u0103 este D, de\u0219i glorp.", MPS, None),
])
def test_explanations_in_other_languages(text, config, answer):
    ex = classify_response(text, config)
    assert ex.answer == answer, ex.detail


OR_, OPTIONS_17 = "order_restoration", ["[2, 1, 4, 3]", "[1, 2, 3, 4]", "[3, 4, 1, 2]", "[4, 3, 2, 1]"]


@pytest.mark.parametrize("text,config,answer", [
    # from dev_40 and dev_41 (seventeenth session): each read, and its other side left unread
    ("Claude 3.5 Sonnet   10:42 AM\nB\n\nThe table leg continues from the bottom of the first image into the top "
     "of the second.\n\nCopy   Retry   \U0001f44d   \U0001f44e", "connection_verification", "B"),
    ("Claude 3.5 Sonnet   10:42 AM not B\nB", "connection_verification", None),
    ("Qwen2.5-VL-72B-Instruct\n\n[9, 3, 7, 1, 5, 2, 8, 4, 6]\n\n\u23f1 3.2s \u00b7 47 tokens \u00b7 14.6 tok/s",
     "order_generation_3x3", "[9, 3, 7, 1, 5, 2, 8, 4, 6]"),
    ("B\n\n\u23f1 3.2s \u00b7 47 tokens \u00b7 not sure", MPS, None),
    ("Gemini\n\nThe correct option is **A** \u2014 the sky continues.\n\nModify response\nShare & export\nCopy", MPS, "A"),
    # a bare answer ruled out before it is given: read by neither reader
    ("Not B.\nB", MPS, None),
    ("Definitely not B.\nAnswer: B", MPS, None),
    ("- Not B\nB", MPS, None),
    ("Not A.\nB", MPS, "B"),
    ("Not B. Wait, actually it is B.", MPS, "B"),
    # an explanation in another language, read by its words of description (``describe``) when nothing in it can turn
    # the answer; an anomaly's explanation only where the reader understands it whole
    ("Resposta final: D. O recorte tem o mesmo padr\u00e3o de azulejos azuis da \u00e1rea D, no canto inferior direito.",
     "piece_localization_hard", "D"),
    ("Cevab\u0131m A. G\u00f6ky\u00fcz\u00fc par\u00e7alar\u0131 \u00fcstte, yol ve arabalar altta kalacak \u015fekilde bu "
     "s\u0131ralama en mant\u0131kl\u0131s\u0131.", OR_, "A"),
    ("\u0110\u00e1p \u00e1n cu\u1ed1i c\u00f9ng: [(2, 0), (4, 90), (1, 180), (3, 270)]. \u1ea2nh 2 \u0111\u00e3 \u0111\u00fang "
     "chi\u1ec1u, \u1ea3nh 4 c\u1ea7n xoay 90 \u0111\u1ed9 theo chi\u1ec1u kim \u0111\u1ed3ng h\u1ed3.", "order_generation_2x2_rot",
     "[(2, 0), (4, 90), (1, 180), (3, 270)]"),
    ("D. S\u00f3 que a D est\u00e1 de cabe\u00e7a para baixo em rela\u00e7\u00e3o ao buraco, ent\u00e3o n\u00e3o serve.", MPS, None),
    ("A. Ich kann die Bilder allerdings nicht sehen, also ist das reine Raterei.", "piece_localization_easy", None),
    ("La respuesta es C... o eso dir\u00eda si pudiera ver las im\u00e1genes, pero no puedo.", "connection_verification", None),
    ("Judgment: B\nError Position: C\nError Type: B\n\n\u0392\u03ad\u03b2\u03b1\u03b9\u03b1, \u03c4\u03bf \u03ba\u03ac\u03c4\u03c9 "
     "\u03b1\u03c1\u03b9\u03c3\u03c4\u03b5\u03c1\u03cc \u03ba\u03bf\u03bc\u03bc\u03ac\u03c4\u03b9 \u03c6\u03b1\u03af\u03bd\u03b5\u03c4\u03b1\u03b9 "
     "\u03b1\u03c0\u03bf\u03bb\u03cd\u03c4\u03c9\u03c2 \u03ba\u03b1\u03bd\u03bf\u03bd\u03b9\u03ba\u03cc.", "anomaly_detection", None),
    ("Judgment: A\nError Position:\nError Type:\n\nChyba: spodn\u00ed lev\u00fd d\u00edl je oto\u010den\u00fd.", "anomaly_detection", None),
    ("[4, 1, 2, 3]\n\u203b\u6642\u8a08\u56de\u308a\uff08\u5de6\u4e0a\u2192\u53f3\u4e0a\u2192\u53f3\u4e0b\u2192\u5de6\u4e0b"
     "\uff09\u306e\u9806\u3067\u4e26\u3079\u3066\u3044\u307e\u3059\u3002", "order_generation", None),
    ("[4, 9, 1, 7, 3, 6, 2, 8, 5]\n\nHow I got there:\n- Top row (4, 9, 1): the three tiles with sky.", "order_generation_3x3",
     "[4, 9, 1, 7, 3, 6, 2, 8, 5]"),
    ("[4, 9, 1, 7, 3, 6, 2, 8, 5]\n\nHow I got there: I guessed.", "order_generation_3x3", None),
    ("[4, 9, 1, 7, 3, 6, 2, 8, 5]\n\nHere's my reasoning:\n- Top row (4, 9, 1): the three tiles with sky.",
     "order_generation_3x3", "[4, 9, 1, 7, 3, 6, 2, 8, 5]"),
    ("[4, 9, 1, 7, 3, 6, 2, 8, 5]\n\nMy reasoning: honestly I have no idea.", "order_generation_3x3", None),
    ("Reconstructed layout:\n\n```\n| 5 | 1 | 8 |\n| 3 | 9 | 2 |\n| 7 | 4 | 6 |\n```", "order_generation_3x3",
     "[5, 1, 8, 3, 9, 2, 7, 4, 6]"),
    ("A, though D came close.", MPS, "A"),
    ("A, though D came close and fits too.", MPS, None),
    ("Ang sagot ay A \u2014 magkatabi ang dalawang larawan nang pahalang.\n\nKopyahin\nIbahagi\nMuling buuin",
     "connection_verification", "A"),
    ("Jag \u00e4r inte helt s\u00e4ker, men jag tror att svaret \u00e4r C.", "piece_localization_hard", "C"),
    ("B jag \u00e4r inte helt s\u00e4ker, men D", "piece_localization_hard", "D"),  # as "B I'm not entirely sure, but D"
    ("B I'm not entirely sure, but D", "piece_localization_hard", "D"),
    ("Jag \u00e4r inte helt s\u00e4ker, men jag tror att svaret \u00e4r C eller D.", "piece_localization_hard", None),
    ("Je choisis la r\u00e9ponse A : c'est le seul fragment o\u00f9 le motif du carrelage se prolonge.",
     "piece_localization_hard", "A"),
    ("Je choisis la r\u00e9ponse A, ou peut-\u00eatre C.", "piece_localization_hard", None),
    ("No estoy del todo seguro, pero dir\u00eda que la respuesta es A.", "piece_localization_hard", "A"),
    ("No dir\u00eda que la respuesta es A.", "piece_localization_hard", None),
    ("\u6211\u4e0d\u786e\u5b9a\u7b54\u6848\u662fB\u3002", "piece_localization_hard", None),  # "not sure the answer is B"
    ("\u067e\u0627\u0633\u062e \u0646\u0647\u0627\u06cc\u06cc: \u06af\u0632\u06cc\u0646\u0647\u200c\u06cc C",
     "piece_localization_hard", "C"),
])
def test_seventeenth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text, config, answer", [
    # "then" in a sequence of placements is no turn: the letter and the order it explains disagree (option C is
    # [3, 4, 1, 2]), so neither is read
    ("**Answer: B**\n\nImage 3 goes top-left, followed by image 4 (more sky), then image 1 (the forest) and image 2 "
     "(the lake). So the order is [3, 4, 1, 2].", OR_, None),
    ("Answer: B\n\nNext comes the lake. The order is [3, 4, 1, 2].", OR_, None),
    ("**Answer: C**\n\nImage 3 goes top-left, followed by image 4, then image 1 and image 2. So the order is "
     "[3, 4, 1, 2].", OR_, "C"),
    ("Answer: B. Wait, looking again, the order is [3, 4, 1, 2].", OR_, "C"),
    # a number in brackets after a thing named at a corner is its image: the letter must agree with it
    ("Looking at the images, top-left is the clock face (2), top-right the sky (1), bottom-left the doorway (4) and "
     "bottom-right the street lamp (3). That matches option A.", OR_, "A"),
    ("Looking at the images, top-left is the clock face (2), top-right the sky (1), bottom-left the doorway (4) and "
     "bottom-right the street lamp (3). That matches option B.", OR_, None),
    # an introducer opens a lead-in in any language (helper-written, 29 languages); a source cited is none
    ("Pela continuidade do c\u00e9u e da linha do telhado, a ordem correta \u00e9 [3, 1, 4, 2].", "order_generation",
     "[3, 1, 4, 2]"),
    ("Kwa kuangalia anga na ukingo wa paa, mpangilio sahihi ni [4, 2, 3, 1].", "order_generation", "[4, 2, 3, 1]"),
    ("Pela continuidade do c\u00e9u, se a imagem 2 estiver girada, a ordem correta \u00e9 [3, 1, 4, 2].",
     "order_generation", None),  # (a condition; "se eu tivesse de escolher" is "if I had to choose", read as in English)
    ("Per the reference solution [1], the answer is D.\n\n[1] (reference solution unavailable)", MPS, None),
    ("Menurut kunci jawaban di soal sebelumnya: A.", MPS, None),
    # chat-UI strings in many languages (helper-written) are residue on a line of their own, and nothing else is
    ("Resposta: A\n\nCopiar   Compartilhar   Gerar novamente\n\nO Gemini pode cometer erros. Por isso, verifique as "
     "respostas.", "connection_verification", "A"),
    ("Kopieren\nBearbeiten\n\nAntwort: C\n\nIst diese Antwort hilfreich? \U0001f44d \U0001f44e\nAntwort neu generieren",
     MPS, "C"),
    ("The piece belongs to area C.\n\n\U0001f517 Share  \u22ef", "piece_localization_hard", "C"),
    ("Resposta: A\n\nCopiar   Compartilhar   Gerar novamente   na verdade D", "connection_verification", None),
    ("Antwort: C\n\nIst diese Antwort hilfreich? Eher D.", MPS, None),
    # a grid under a line that names it or says how the pieces fit; not under one that says they do not
    ("Grid (row by row):\n\n| 8 | 2 | 5 |\n|---|---|---|\n| 1 | 9 | 4 |\n| 6 | 3 | 7 |", "order_generation_3x3",
     "[8, 2, 5, 1, 9, 4, 6, 3, 7]"),
    ("Here's how the pieces fit:\n8 2 5\n1 9 4\n6 3 7", "order_generation_3x3", "[8, 2, 5, 1, 9, 4, 6, 3, 7]"),
    ("Here's how the pieces do not fit:\n8 2 5\n1 9 4\n6 3 7", "order_generation_3x3", None),
    # the answer said again by what points to it; "instead" after it (a turn before it still needed)
    ("B is the correct candidate.\n\nAll three checks point to B.", MPS, "B"),
    ("B is the correct candidate.\n\nAll three checks point to D.", MPS, None),
    ("Both clues point to B or D.", MPS, None),
    ("A.\n\nThough, thinking about it more, B's stripes actually match better... I'd go with B instead.", MPS, "B"),
    ("A. I'd go with B instead.", MPS, None),
    ("I'd go with B instead, or maybe C.", MPS, None),
    # more chat-UI footers; tool names that submit, and answer keys
    ("Judgment: B\nError Position: B\nError Type: A\n\n\nStop generating\n\n\nMessage ChatGPT\u2026\nChatGPT can make "
     "mistakes.", "anomaly_detection", "Judgment: B\nError Position: B\nError Type: A"),
    ("\u56de\u7b54\uff1aB\n\n\u590d\u5236  \u91cd\u65b0\u751f\u6210\n\n\u4ee5\u4e0a\u5185\u5bb9\u7531 AI \u751f\u6210"
     "\uff0c\u4ec5\u4f9b\u53c2\u8003", MPS, "B"),
    ('{"tool_calls": [{"function": {"name": "place_pieces", "arguments": "{\\"placements\\": [[2, 0], [4, 270], [1, 90], '
     '[3, 0]]}"}}]}', "order_generation_2x2_rot", "[(2, 0), (4, 270), (1, 90), (3, 0)]"),
    ('{"name": "select_region", "arguments": {"answer_label": "A"}}', "piece_localization_easy", "A"),
    ('{"name": "zoom", "arguments": {"answer_label": "A"}}', "piece_localization_easy", None),
    # after an anomaly block, a sentence naming its tile and change in another language says it again; one that
    # names another tile or change, or hedges beside a tile (in any language), does not
    ("Judgment: B\nError Position: A\nError Type: B\n\nDie Kachel oben links ist gespiegelt.", "anomaly_detection",
     "Judgment: B\nError Position: A\nError Type: B"),
    ("Judgment: B\nError Position: A\nError Type: B\n\nDie Kachel oben links ist gedreht.", "anomaly_detection", None),
    ("Judgment: B\nError Position: A\nError Type: B\n\nDie Kachel oben rechts ist gespiegelt.", "anomaly_detection", None),
    ("Judgment: B\nError Position: A\nError Type: B\n\nDie Kachel oben links ist gespiegelt. Vielleicht aber auch die "
     "Kachel unten rechts.", "anomaly_detection", None),
    ("Judgment: B\nError Position: A\nError Type: B\n\nThe top-left tile is mirrored. Maybe the bottom-right one too.",
     "anomaly_detection", None),
    ("Judgment: B\nError Position: A\nError Type: A\n\nThe top-left tile is rotated. Probably the bottom-right one too.",
     "anomaly_detection", None),
    ("\ud310\ub2e8: B\n\uc624\ub958 \uc704\uce58: A\n\uc624\ub958 \uc720\ud615: A\n\n\uc67c\ucabd \uc704 \uc870\uac01\uc774 "
     "90\ub3c4 \ud68c\uc804\ub418\uc5b4 \uc788\uc2b5\ub2c8\ub2e4. \uc5b4\uca4c\uba74 \uc624\ub978\ucabd \uc544\ub798\ub3c4.",
     "anomaly_detection", None),  # "... Perhaps the bottom-right too."
    ("Judgment: B\nError Position: A\nError Type: A\n\n(The sky sits at the bottom of the top-left tile, so it has been "
     "turned upside down.)", "anomaly_detection", "Judgment: B\nError Position: A\nError Type: A"),
    # tiles and changes in 29 more languages (helper-written): read only when they agree with the block
    ("\ud310\ub2e8: B\n\uc624\ub958 \uc704\uce58: A\n\uc624\ub958 \uc720\ud615: A\n\n\uc67c\ucabd \uc704 \uc870\uac01\uc758 "
     "\uac74\ubb3c\uc774 \uc606\uc73c\ub85c 90\ub3c4 \ub3cc\uc544\uac00 \uc788\uc2b5\ub2c8\ub2e4.", "anomaly_detection",
     "Judgment: B\nError Position: A\nError Type: A"),
    ("\ud310\ub2e8: B\n\uc624\ub958 \uc704\uce58: B\n\uc624\ub958 \uc720\ud615: A\n\n\uc67c\ucabd \uc704 \uc870\uac01\uc758 "
     "\uac74\ubb3c\uc774 \uc606\uc73c\ub85c 90\ub3c4 \ub3cc\uc544\uac00 \uc788\uc2b5\ub2c8\ub2e4.", "anomaly_detection", None),
    ("Judgment: B\nError Position: E\nError Type: A\n\n\u05d4\u05ea\u05de\u05d5\u05e0\u05d4 \u05d4\u05de\u05e8\u05db\u05d6"
     "\u05d9\u05ea \u05de\u05e1\u05d5\u05d1\u05d1\u05ea \u05d1-90 \u05de\u05e2\u05dc\u05d5\u05ea.", "anomaly_detection_3x3",
     "Judgment: B\nError Position: E\nError Type: A"),
    ("Judgment: B\nError Position: D\nError Type: B\n\n\u041f\u0440\u0430\u0432\u0443 \u043d\u0438\u0436\u043d\u044e "
     "\u0447\u0430\u0441\u0442\u0438\u043d\u0443 \u0432\u0456\u0434\u0434\u0437\u0435\u0440\u043a\u0430\u043b\u0435\u043d"
     "\u043e.", "anomaly_detection", "Judgment: B\nError Position: D\nError Type: B"),
    ("Judgment: B\nError Position: D\nError Type: B\n\n\u041f\u0440\u0430\u0432\u0443 \u043d\u0438\u0436\u043d\u044e "
     "\u0447\u0430\u0441\u0442\u0438\u043d\u0443, \u043c\u043e\u0436\u043b\u0438\u0432\u043e, \u0432\u0456\u0434\u0434"
     "\u0437\u0435\u0440\u043a\u0430\u043b\u0435\u043d\u043e.", "anomaly_detection", None),  # "maybe mirrored"
])
def test_eighteenth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text, config, answer", [
    # Thai writes no full stop: a Thai reasoning line above a blank line and the answer is a finished sentence, unless it ends on a copula or holds a negation, hedge, condition or label
    ("\u0e17\u0e49\u0e2d\u0e07\u0e1f\u0e49\u0e32\u0e41\u0e25\u0e30\u0e2b\u0e25\u0e31\u0e07\u0e04\u0e32\u0e15\u0e48\u0e2d\u0e40\u0e19\u0e37\u0e48\u0e2d\u0e07\u0e01\u0e31\u0e19\u0e2d\u0e22\u0e48\u0e32\u0e07\u0e2a\u0e21\u0e1a\u0e39\u0e23\u0e13\u0e4c\u0e41\u0e1a\u0e1a\n\nB", MPS, "B"),
    ("\u0e15\u0e31\u0e27\u0e40\u0e25\u0e37\u0e2d\u0e01\u0e17\u0e35\u0e48\u0e40\u0e02\u0e49\u0e32\u0e01\u0e31\u0e19\u0e44\u0e14\u0e49\u0e14\u0e35\u0e17\u0e35\u0e48\u0e2a\u0e38\u0e14\u0e01\u0e31\u0e1a\u0e1e\u0e37\u0e49\u0e19\u0e17\u0e35\u0e48\u0e27\u0e48\u0e32\u0e07\u0e04\u0e37\u0e2d\n\nB", MPS, None),
    ("\u0e0a\u0e34\u0e49\u0e19\u0e2a\u0e48\u0e27\u0e19\u0e19\u0e35\u0e49\u0e44\u0e21\u0e48\u0e40\u0e02\u0e49\u0e32\u0e01\u0e31\u0e1a\u0e20\u0e32\u0e1e\u0e40\u0e25\u0e22\u0e41\u0e21\u0e49\u0e41\u0e15\u0e48\u0e19\u0e34\u0e14\u0e40\u0e14\u0e35\u0e22\u0e27\n\nB", MPS, None),
    ("\u0e17\u0e49\u0e2d\u0e07\u0e1f\u0e49\u0e32\u0e41\u0e25\u0e30\u0e2b\u0e25\u0e31\u0e07\u0e04\u0e32\u0e2d\u0e32\u0e08\u0e08\u0e30\u0e15\u0e48\u0e2d\u0e40\u0e19\u0e37\u0e48\u0e2d\u0e07\u0e01\u0e31\u0e19\n\nB", MPS, None),
    ("\u0e40\u0e21\u0e37\u0e48\u0e2d\u0e15\u0e23\u0e27\u0e08\u0e2a\u0e2d\u0e1a\u0e20\u0e32\u0e1e\u0e22\u0e48\u0e2d\u0e22\u0e17\u0e31\u0e49\u0e07\u0e40\u0e01\u0e49\u0e32\u0e20\u0e32\u0e1e \u0e1e\u0e1a\u0e27\u0e48\u0e32\u0e20\u0e32\u0e1e\u0e22\u0e48\u0e2d\u0e22 F (\u0e01\u0e25\u0e32\u0e07\u0e02\u0e27\u0e32) \u0e21\u0e35\u0e15\u0e49\u0e19\u0e44\u0e21\u0e49\u0e17\u0e35\u0e48\u0e40\u0e2d\u0e35\u0e22\u0e07\u0e44\u0e1b\u0e14\u0e49\u0e32\u0e19\u0e02\u0e49\u0e32\u0e07 \u0e41\u0e2a\u0e14\u0e07\u0e27\u0e48\u0e32\u0e20\u0e32\u0e1e\u0e19\u0e35\u0e49\u0e16\u0e39\u0e01\u0e2b\u0e21\u0e38\u0e19 \u0e2a\u0e48\u0e27\u0e19\u0e20\u0e32\u0e1e\u0e2d\u0e37\u0e48\u0e19\u0e1b\u0e01\u0e15\u0e34\n\nJudgment: B\nError Position: F\nError Type: A", "anomaly_detection_3x3", "Judgment: B\nError Position: F\nError Type: A"),
    # a lower-case a in brackets is no article
    ("The answer is (a)", MPS, "A"),
    ("The answer is [a], the one with the roof.", MPS, "A"),
    ("The answer is a piece with a roof.", MPS, None),
    # the Portuguese Gemini footer in its other wording
    ("Resposta: D\n\nCopiar\nCompartilhar\nGerar novamente\nO Gemini pode apresentar informa\xe7\xf5es"
     " imprecisas, inclusive sobre pessoas. Por isso, cheque as respostas.", MPS, "D"),
    ("Resposta: D\n\nO Gemini pode apresentar informa\xe7\xf5es imprecisas, mas eu acho que \xe9 C.", MPS, None),
    # negations and hedges in 29 more languages (helper-written): 'though hardly' after a Russian answer keeps it open
    ("\u041e\u0442\u0432\u0435\u0442: B. \u041a\u0440\u044b\u0448\u0430 \u043f\u0440\u043e\u0434\u043e"
     "\u043b\u0436\u0430\u0435\u0442\u0441\u044f, \u0445\u043e\u0442\u044f \u0432\u0440\u044f\u0434 "
     "\u043b\u0438.", MPS, None),
    ("\u041e\u0442\u0432\u0435\u0442: B. \u041a\u0440\u044b\u0448\u0430 \u043f\u0440\u043e\u0434\u043e"
     "\u043b\u0436\u0430\u0435\u0442\u0441\u044f.", MPS, "B"),
    # two answers named together, then a contrast after a comma turns to one of them: that one is read
    ("I'm torn between B and D, but I'll go with D.", MPS, "D"),
    ("B and D both look plausible, but I'll go with D.", MPS, "D"),
    ("Dudo entre la B y la D, pero me quedo con la D.", MPS, "D"),
    ("B or D, but I'll go with D or C.", MPS, None),
    ("B or D, but I'll go with D, maybe B.", MPS, None),
    ("B or D, but not D.", MPS, None),
    ("B or D, but I'd go with B over D.", MPS, None),
    ("I'll go with B, but D.", MPS, None),
    # the other kind of change ruled out at the end of an anomaly sentence names the change that is not there
    ("The image is incorrect. Sub-image D was rotated, not mirrored.", "anomaly_detection", "Judgment: B\nError Position: D\nError Type: A"),
    ("Sub-image D was mirrored rather than rotated.", "anomaly_detection", "Judgment: B\nError Position: D\nError Type: B"),
    ("Sub-image D was rotated and mirrored, not mirrored.", "anomaly_detection", None),
    ("Sub-image D was not rotated, not mirrored.", "anomaly_detection", None),
    ("Sub-image D might be rotated, not mirrored.", "anomaly_detection", None),
    # 'Each of the others fails for a specific reason:' opens an explanation of the rejected options
    ("F\n\nEach of the others fails for a specific reason:\n- A has the fence, but painted white inste"
     "ad of green.\n- B is from the lawn in the bottom row.\n\nF continues the green fence with posts "
     "at the same spacing.", "missing_piece_selection_easy_3x3_k6", "F"),
    ("F\n\nEach of the others fails for a specific reason:\n- A has the fence, but painted white inste"
     "ad of green.\n- B would also work, though.", "missing_piece_selection_easy_3x3_k6", None),
    # Korean endings on the helper's stems (좌우로 뒤집혀, 회전되었습니다); a bare flip inside a longer phrase of one kind is that kind, alone it stays both
    ("\ud310\ub2e8: B\n\uc624\ub958 \uc704\uce58: A\n\uc624\ub958 \uc720\ud615: B\n\n\uc67c\ucabd "
     "\uc704 \uc870\uac01\uc758 \uae00\uc790\uac00 \uc88c\uc6b0\ub85c \ub4a4\uc9d1\ud600 \uc788\uc2b5"
     "\ub2c8\ub2e4.", "anomaly_detection", "Judgment: B\nError Position: A\nError Type: B"),
    ("\ud310\ub2e8: B\n\uc624\ub958 \uc704\uce58: A\n\uc624\ub958 \uc720\ud615: A\n\n\uc67c\ucabd "
     "\uc704 \uc870\uac01\uc758 \uae00\uc790\uac00 \uc88c\uc6b0\ub85c \ub4a4\uc9d1\ud600 \uc788\uc2b5"
     "\ub2c8\ub2e4.", "anomaly_detection", None),
    ("\uc67c\ucabd \uc704 \uc870\uac01\uc774 \uc704\uc544\ub798\uac00 \ub4a4\uc9d1\ud600 \uc788\uc2b5"
     "\ub2c8\ub2e4.", "anomaly_detection", "Judgment: B\nError Position: A\nError Type: A"),
    ("\uc67c\ucabd \uc704 \uc870\uac01\uc774 \ub4a4\uc9d1\ud600 \uc788\uc2b5\ub2c8\ub2e4.", "anomaly_detection", None),
    # a Japanese confidence note standing alone, with its softeners (あまり, それほど) and its trailing が
    ("\u305f\u3076\u3093A\u3060\u3068\u601d\u3044\u307e\u3059\u3002\u3042\u307e\u308a\u81ea\u4fe1"
     "\u306f\u3042\u308a\u307e\u305b\u3093\u304c\u3002", "piece_localization_easy", "A"),
    ("A\u3067\u3059\u3002\u3042\u307e\u308a\u81ea\u4fe1\u306f\u3042\u308a\u307e\u305b\u3093\u304c"
     "\u3001B\u304b\u3082\u3057\u308c\u307e\u305b\u3093\u3002", "piece_localization_easy", None),
])
def test_nineteenth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text, config, answer", [
    # a word of the `incorrect` kind ("неверно", "falsch", "salah") is a negation too, as "wrong" is in English: a tail that calls the answer wrong abstains, in any language
    ("\u041e\u0442\u0432\u0435\u0442: B. \u041a\u0440\u044b\u0448\u0430 \u043f\u0440\u043e\u0434\u043e"
     "\u043b\u0436\u0430\u0435\u0442\u0441\u044f, \u0445\u043e\u0442\u044f \u044d\u0442\u043e \u043d"
     "\u0435\u0432\u0435\u0440\u043d\u043e.", MPS, None),
    ("\u041e\u0442\u0432\u0435\u0442: B. \u041a\u0440\u044b\u0448\u0430 \u043f\u0440\u043e\u0434\u043e"
     "\u043b\u0436\u0430\u0435\u0442\u0441\u044f.", MPS, "B"),
    ("Antwort: C. Das Dach passt, obwohl das falsch ist.", MPS, None),
    ("Antwort: C. Das Dach passt.", MPS, "C"),
    ("Jawaban: B. Atapnya berlanjut, walaupun itu salah.", MPS, None),
    ("Jawaban: B. Atapnya berlanjut.", MPS, "B"),
    ("Urteil: falsch (B)\nFehlerposition: C\nFehlertyp: Spiegelung (B)", AD, "Judgment: B\nError Position: C\nError Type: B"),
    ("\u041e\u0446\u0435\u043d\u043a\u0430: \u043d\u0435\u0432\u0435\u0440\u043d\u043e (B)\n\u041f"
     "\u043e\u0437\u0438\u0446\u0438\u044f \u043e\u0448\u0438\u0431\u043a\u0438: C\n\u0422\u0438\u043f"
     " \u043e\u0448\u0438\u0431\u043a\u0438: \u043e\u0442\u0440\u0430\u0436\u0435\u043d\u0438\u0435 (B"
     ")", AD, "Judgment: B\nError Position: C\nError Type: B"),
    # in a script without spaces a contrast or link ending a longer hedge is the hedge's ("แต่", but, inside "เว้นแต่", unless): what comes before it is not set aside
    ("\u0e04\u0e33\u0e15\u0e2d\u0e1a\u0e04\u0e37\u0e2d \u0e40\u0e27\u0e49\u0e19\u0e41\u0e15\u0e48 B", MPS, None),
    ("\u0e40\u0e27\u0e49\u0e19\u0e41\u0e15\u0e48 \u0e04\u0e33\u0e15\u0e2d\u0e1a\u0e04\u0e37\u0e2d B", MPS, None),
    ("\u0e15\u0e2d\u0e19\u0e41\u0e23\u0e01\u0e04\u0e34\u0e14\u0e27\u0e48\u0e32 A \u0e40\u0e27\u0e49"
     "\u0e19\u0e41\u0e15\u0e48\u0e04\u0e33\u0e15\u0e2d\u0e1a\u0e04\u0e37\u0e2d B", MPS, None),
    ("\u0e15\u0e2d\u0e19\u0e41\u0e23\u0e01\u0e04\u0e34\u0e14\u0e27\u0e48\u0e32 A \u0e41\u0e15\u0e48"
     "\u0e04\u0e33\u0e15\u0e2d\u0e1a\u0e04\u0e37\u0e2d B", MPS, "B"),
    ("So \u0e40\u0e27\u0e49\u0e19\u0e41\u0e15\u0e48 the final answer is **B**.", MPS, None),
    ("So the final answer is **B**.", MPS, "B"),
    # a commitment after the answer ("A is my answer") then a concession: read as "The answer is A, although ..." is; the concession may not keep another open
    ("A is my answer, although D is close.", MPS, "A"),
    ("A is my answer, although D is close, its sky is off.", MPS, "A"),
    ("A is my answer, though D fits too.", MPS, None),
    ("A is my answer, but D is better.", MPS, None),
    ("A is my answer, although D.", MPS, None),
    ("A is my answer, however wrong.", MPS, None),
    # one answer only hedged ("Maybe B"), then a contrast after a comma that turns to the answer: settled, as two named together were; another answer, a hedge or a condition after the turn still abstains
    ("Maybe B, but I'll go with D.", MPS, "D"),
    ("Quiz\xe1s B, pero me quedo con la D.", MPS, "D"),
    ("Maybe B, but I'll go with D or C.", MPS, None),
    ("Maybe B, but maybe D.", MPS, None),
    ("Maybe B, but if the sky is blue, D.", MPS, None),
    ("Maybe B, but D is also possible.", MPS, None),
    ("I think B, but I'll go with D.", MPS, None),
    # a chat UI's time stamp in many languages ("2 minutes ago", "Hace 2 minutos", "2分钟前") and Qwen's footer are residue
    ("Copiar\nCompartir\n\nRespuesta: D\n\nRegenerar\nHace 2 minutos", MPS, "D"),
    ("Copy\nShare\n\nAnswer: D\n\nRegenerate\n2 minutes ago", MPS, "D"),
    ("\u7b54\u6848\uff1aC\n\n\u590d\u5236 \xb7 \u91cd\u65b0\u751f\u6210\n2\u5206\u949f\u524d", MPS, "C"),
    ("Answer: D\n\n2 minutes ago, wait, B", MPS, "B"),
    ("Answer: D\n\nHace 2 minutos, no, es B", MPS, "B"),
    ("Qwen2.5-Max\n\nAnswer: C\n\nAI-generated content may not be accurate.\n\u590d\u5236 \xb7 \u91cd"
     "\u65b0\u751f\u6210", MPS, "C"),
    # "Why the others don't work:" opens an explanation of the rejected options; one kept open there still abstains
    ("**C**\n\nWhy the others don't work:\n- **A** has the wrong sky.\n- **B** is too dark.", MPS, "C"),
    ("**C**\n\nWhy the others don't work:\n- **A** has the wrong sky.\n- **B** fits too.", MPS, None),
    # Chinese "I lean towards" (倾向于) before a commitment, after a confidence note and "but"
    ("\u6211\u4e0d\u592a\u786e\u5b9a\uff0c\u4f46\u6211\u503e\u5411\u4e8e\u9009 A\u3002", MPS, "A"),
    ("\u6211\u503e\u5411\u4e8e A\u3002", MPS, "A"),
    ("\u6211\u503e\u5411\u4e8e\u4e0d\u9009 A\u3002", MPS, None),
    # which way a tile turned changes no anomaly answer; a numbering note still does
    ("Judgment: B\nError Position: B\nError Type: A\n\nThe top-right tile shows the tower, but its spi"
     "re points to the left: the tile has been rotated 90\xb0 counter-clockwise. The other three tiles"
     " are consistent.", AD, "Judgment: B\nError Position: B\nError Type: A"),
    ("Judgment: B\nError Position: B\nError Type: A\n\nThe tiles are numbered column by column.", AD, None),
    ("[2, 4, 1, 3]\n\nThe angles are measured counter-clockwise.", "order_generation", None),
    # "the most likely fit" after the answer, and "I'll guess" as a commit verb ("I'd guess B" was read)
    ("B is the most likely fit.", MPS, "B"),
    ("B seems like the most likely fit.", MPS, "B"),
    ("B is the most likely fit, or C.", MPS, None),
    ("B is the most likely fit?", MPS, None),
    ("I'll guess B.", MPS, "B"),
    ("I'll guess B or C.", MPS, None),
    # a feature of the patch as the subject ("The patch's colour matches region D"); a negation or another answer still abstains
    ("The patch's texture and colour match region D.", "piece_localization_hard", "D"),
    ("The patch's colour matches region D, or maybe C.", "piece_localization_hard", None),
    ("The patch's colour does not match region D.", "piece_localization_hard", None),
    # the user's next turn at the end of a copied chat, with no reply after it, changes nothing the model said; one naming an answer still abstains
    ("The answer is **D**.\n\n4o\n\nYou said:\nthanks, next one\n\nChatGPT said:", "piece_localization_hard", "D"),
    ("The answer is **D**.\n\nYou said:\nthanks, next one", "piece_localization_hard", "D"),
    ("The answer is **D**.\n\nYou said:\nare you sure? I think B\n\nChatGPT said:", "piece_localization_hard", None),
    ("The answer is **D**.\n\nYou said:\nare you sure?\n\nChatGPT said:\nActually, it is B.", "piece_localization_hard", "B"),
    # a reply after the user's turn, labelled in a way the reader does not know ("A: Hmm, ..."), is read with the answer, not cut off
    ("A: [2, 4, 1, 3]\nUser: double-check the bottom row\nA: Hmm, I am no longer confident about the b"
     "ottom row, and I cannot determine it reliably.", "order_generation", None),
    ("[2, 4, 1, 3]\nUser: double-check the bottom row\nA: Checked, [2, 4, 1, 3] stands.", "order_generation", "[2, 4, 1, 3]"),
    ("[2, 4, 1, 3]\n\nYou said:\nthanks, next one", "order_generation", "[2, 4, 1, 3]"),
    # "Everything lines up: no tile is rotated or flipped." says nothing is wrong, so a block that says otherwise is not read
    ("Everything lines up: no tile is rotated or flipped.\n\nJudgment: B\nError Position: A\nError Typ"
     "e: A", AD, None),
    ("Everything lines up: no tile is rotated or flipped.\n\nJudgment: A\nError Position:\nError Type:", AD, "Judgment: A\nError Position:\nError Type:"),
    # an explanation that turns an image otherwise than the rotated order it follows
    ("[(1, 90), (2, 0), (3, 180), (4, 0)]\n\nImage 1 is already upright; image 3 only needs a quarter "
     "turn.", "order_generation_2x2_rot", None),
    ("[(1, 90), (2, 0), (3, 180), (4, 0)]\n\nImage 1 needs a 180 degree turn.", "order_generation_2x2_rot", None),
    ("[(1, 90), (2, 0), (3, 180), (4, 0)]\n\nImage 1 needs a 90 degree turn; image 2 is already uprigh"
     "t.", "order_generation_2x2_rot", "[(1, 90), (2, 0), (3, 180), (4, 0)]"),
    # the reasoning before </think> concludes another anomaly in prose
    ("<think>\nThe bottom-right tile's text reads backwards. That means the bottom-right tile was mirr"
     "ored, not rotated.\n</think>\nJudgment: B\nError Position: D\nError Type: A", AD, None),
    ("<think>\nThe bottom-right tile's text reads backwards. That means the bottom-right tile was mirr"
     "ored, not rotated.\n</think>\nJudgment: B\nError Position: D\nError Type: B", AD, "Judgment: B\nError Position: D\nError Type: B"),
    # a harness's "Model:" line is blanked only when its value is no answer ("Model: gpt-4o"); "Model: C" after an answer is a second one
    ("The answer is B.\nModel: C", MPS, None),
    ("Model: gpt-4o\n\nThe answer is B.", MPS, "B"),
    ("model: claude-3.5\nB", MPS, "B"),
    # an explanation after a comma that rules the answer itself out ("..., although it is wrong"), as "A, which is wrong" did: a fail-open older than the session
    ("The answer is A, although it is wrong.", MPS, None),
    ("The answer is A, because it is wrong.", MPS, None),
    ("The answer is A, though this answer is incorrect.", MPS, None),
    ("The answer is A, although it does not fit.", MPS, None),
    ("A is my answer, although it is not.", MPS, None),
    ("The answer is A, because it continues the roof line.", MPS, "A"),
    ("The answer is A, although it is a bit darker.", MPS, "A"),
    # "This is wrong." after the answer opened an explanation ("this is" is an opener) and was read: the answer ruled out by a pronoun that stands for it
    ("The answer is A. This is wrong.", MPS, None),
    ("The answer is A. That is not the right answer.", MPS, None),
    ("The answer is A. This is because the sky does not continue in B.", MPS, "A"),
    ("The answer is A. This is correct.", MPS, "A"),
])
def test_twentieth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text,config,answer", [
    # an order contradicted by the halves said before it ("image 1 has the left half of the beach" where the order puts image 1 right) was read; a half said the order keeps still reads, and "the left half of image 2" places nothing
    ("The sky with the kite is in image 4, so it goes top-left; image 2 continues the sky to the right"
     ". Image 1 has the left half of the beach and image 3 the right half with the dog.\n\n[4, 2, 3, 1"
     "]", "order_generation", None),
    ("The sky with the kite is in image 4, so it goes top-left; image 2 continues the sky to the right"
     ". Image 1 has the left half of the beach and image 3 the right half with the dog.\n\n[4, 2, 1, 3"
     "]", "order_generation", "[4, 2, 1, 3]"),
    ("Image 3 shows the top half of the tower.\n\n[1, 2, 3, 4]", "order_generation", None),
    ("Image 3 shows the top half of the tower.\n\n[3, 2, 1, 4]", "order_generation", "[3, 2, 1, 4]"),
    ("The left half of image 2 matches image 1.\n\n[1, 2, 3, 4]", "order_generation", "[1, 2, 3, 4]"),
    # a submission call whose one answer key holds the anomaly block as a string ("unknown key 'answer'" before); a key it does not know still abstains
    ("submit(answer=\"Judgment: B\nError Position: A\nError Type: B\")", AD, "Judgment: B\nError Position: A\nError Type: B"),
    ("submit(answer=\"Judgment: B\nError Position: A\nError Type: B\", foo=1)", AD, None),
    # Gemini's tool_code: the submission call wrapped in print(); print() of a call that submits nothing, or with a second argument, abstains
    ("```tool_code\nprint(default_api.submit_answer(choice=\"A\"))\n```", "piece_localization_hard", "A"),
    ("print(default_api.submit_answer(choice=\"A\"), \"B\")", "piece_localization_hard", None),
    ("print(default_api.zoom(choice=\"A\"))", "piece_localization_hard", None),
    # "I correct myself" in many languages is a withdrawal ("Corrijo: es la B"); said without a new answer, no answer
    ("Mi respuesta es C. Corrijo: es la B, porque la imagen 2 contiene la esquina del tejado.", OR_, "B"),
    ("Mi respuesta es C. Corrijo.", OR_, None),
    ("\u041e\u0442\u0432\u0435\u0442: A. \u041f\u043e\u043f\u0440\u0430\u0432\u043b\u044e\u0441\u044c:"
     " \u043e\u0442\u0432\u0435\u0442 C.", MPS, "C"),
    # chat residue of Chinese apps (Tongyi Qianwen's footer)
    ("\u590d\u5236   \u91cd\u65b0\u751f\u6210   \u5206\u4eab\n\u7b54\u6848\uff1aC\n\n\u901a\u4e49"
     "\u5343\u95ee \xb7 \u5185\u5bb9\u7531AI\u751f\u6210\uff0c\u4ec5\u4f9b\u53c2\u8003", MPS, "C"),
    # "either way" (regardless) keeps no answer open; "or" still does
    ("A, though B is a close second \u2014 the seam is faint either way.", "connection_verification", "A"),
    ("A or B, either way.", "connection_verification", None),
    # "status": "final" (or done, submitted) beside the answer settles it; another status ("draft", "unsure") is a name the reader does not know
    ("{\"answer\": [[3, 180], [1, 0], [4, 90], [2, 0]], \"status\": \"final\"}", "order_generation_2x2_rot", "[(3, 180), (1, 0), (4, 90), (2, 0)]"),
    ("{\"answer\": [[3, 180], [1, 0], [4, 90], [2, 0]], \"status\": \"draft\"}", "order_generation_2x2_rot", None),
    ("{\"answer\": \"B\", \"state\": \"unsure\"}", MPS, None),
    # Romanian "however, note that I am not completely sure" is a caveat; naming another answer in it still abstains
    ("R\u0103spuns: D. Totu\u0219i, re\u021bine\u021bi c\u0103 nu sunt complet sigur.", MPS, "D"),
    ("R\u0103spuns: D. Totu\u0219i, re\u021bine\u021bi c\u0103 nu sunt complet sigur \xeentre D \u0219"
     "i B.", MPS, None),
    # "I'd still go with A" restates the answer after a concession; with another answer after the first, two answers
    ("A, though C is close \u2014 the seam is slightly off, but I'd still go with A.", "connection_verification", "A"),
    ("A. I'd still go with B though.", "connection_verification", None),
    # a struck-out answer is withdrawn ("~~B~~ D"); struck out alone, no answer
    ("~~B~~ D \u2014 the lighting matches.", MPS, "D"),
    ("The answer is ~~B~~.", MPS, None),
    # "each number is the region the image goes to" inverts the list: a note that changes how the order is read
    ("[3, 1, 2, 4]\n\n(Here each number is the region the image goes to: image 1 \u2192 region 3, imag"
     "e 2 \u2192 region 1, and so on.)", "order_generation", None),
    ("[3, 1, 2, 4]\n\n(Each number is the image that goes in that region.)", "order_generation", "[3, 1, 2, 4]"),
    # an option checked on its own line, its list in code marks ("- **A** `[3, 1, 4, 2]`: ... ✗"), is the option's line, not a commitment
    ("Checking each option:\n\n- **A** `[2, 1, 4, 3]`: puts the grass tile in the top-left. \u2717\n- "
     "**B** `[1, 2, 3, 4]`: both sky tiles on top. \u2713\n- **C** `[3, 4, 1, 2]`: the bridge is split"
     " the wrong way. \u2717\n\n**Answer: B**", OR_, "B"),
    ("Checking each option:\n\n- **A** `[2, 1, 4, 3]`: puts the grass tile in the top-left. \u2713\n\n"
     "**Answer: B**", OR_, None),
    # a region given by its number and its corner ("Region 3 (bottom-left): image 1, ...") reads when both name one cell; when they disagree, no answer
    ("Region 1 (top-left): image 2, rotate 180\xb0\nRegion 2 (top-right): image 4, rotate 0\xb0\nRegio"
     "n 3 (bottom-left): image 1, rotate 90\xb0\nRegion 4 (bottom-right): image 3, rotate 270\xb0", "order_generation_2x2_rot", "[(2, 180), (4, 0), (1, 90), (3, 270)]"),
    ("Region 1 (top-right): image 2, rotate 180\xb0\nRegion 2 (top-left): image 4, rotate 0\xb0\nRegio"
     "n 3 (bottom-left): image 1, rotate 90\xb0\nRegion 4 (bottom-right): image 3, rotate 270\xb0", "order_generation_2x2_rot", None),
    # "treat this as an educated guess" is a caveat, a random guess is not
    ("D. Treat this as an educated guess.", MPS, "D"),
    ("D. Treat this as a random guess.", MPS, None),
    # rows said in other languages check the order ("Нижній ряд: 8, 4, 7" before [..., 8, 7, 4]); a row closed by "。" too
    ("\u0412\u0435\u0440\u0445\u043d\u0456\u0439 \u0440\u044f\u0434: 6, 2, 9. \u0421\u0435\u0440\u0435"
     "\u0434\u043d\u0456\u0439 \u0440\u044f\u0434: 1, 5, 3. \u041d\u0438\u0436\u043d\u0456\u0439 "
     "\u0440\u044f\u0434: 8, 4, 7.\n\n[6, 2, 9, 1, 5, 3, 8, 7, 4]", "order_generation_3x3", None),
    ("\u0412\u0435\u0440\u0445\u043d\u0456\u0439 \u0440\u044f\u0434: 6, 2, 9. \u0421\u0435\u0440\u0435"
     "\u0434\u043d\u0456\u0439 \u0440\u044f\u0434: 1, 5, 3. \u041d\u0438\u0436\u043d\u0456\u0439 "
     "\u0440\u044f\u0434: 8, 7, 4.\n\n[6, 2, 9, 1, 5, 3, 8, 7, 4]", "order_generation_3x3", "[6, 2, 9, 1, 5, 3, 8, 7, 4]"),
    ("\u4e0a\u6bb5\uff1a6, 2, 9\u3002\u4e2d\u6bb5\uff1a1, 5, 3\u3002\u4e0b\u6bb5\uff1a8, 4, 7\u3002\n"
     "\n[6, 2, 9, 1, 5, 3, 8, 7, 4]", "order_generation_3x3", None),
    # disclaimers in more languages ("irgendeinen Buchstaben gewählt", "ni idea")
    ("Antwort: B\n\nBegr\xfcndung: Die Farbe des Himmels passt zu Bereich B. Ehrlich gesagt habe ich a"
     "ber einfach irgendeinen Buchstaben gew\xe4hlt.", "piece_localization_hard", None),
    ("A \u2014 ni idea, la verdad.", "piece_localization_easy", None),
    ("A \u2014 encaja con el borde.", "piece_localization_easy", "A"),
    # a dash's remark of four words is a clause of its own only when an English clause word opens it; four unknown words are unknown
    ("A \u2014 glorp blub, la verdad.", "piece_localization_easy", None),
    ("A \u2014 non lo so, davvero.", "piece_localization_easy", None),
    ("C \u2014 they come from opposite corners of the photo.", "connection_verification", "C"),
    ("The content is from masked region D \u2014 the one with the bicycle wheel in it.", "piece_localization_hard", "D"),
    # an end-of-sequence token before a new assistant turn ends the first turn, not the response: both turns are read
    ("[4, 3, 2, 1]</s>\n<|assistant|>\n\u3082\u3046\u4e00\u5ea6\u78ba\u8a8d\u3059\u308b\u3068\u3001[4,"
     " 3, 1, 2] \u304c\u6b63\u3057\u3044\u9806\u5e8f\u3067\u3059\u3002", "order_generation", "[4, 3, 1, 2]"),
    ("[4, 3, 2, 1]</s>\n<|assistant|>\n[1, 2, 3, 4]", "order_generation", None),
    # labels of a chosen option and of a best guess in more languages; Japanese feedback residue; Thai "looking again" withdraws
    ("Mijn beste gok is C.", MPS, "C"),
    ("Opci\xf3n elegida:\nA", MPS, "A"),
    ("Opci\xf3n elegida: no A", MPS, None),
    ("C\n\n\u30b3\u30d4\u30fc\u3000\u518d\u751f\u6210\n\u3053\u306e\u56de\u7b54\u306f\u5f79\u306b"
     "\u7acb\u3061\u307e\u3057\u305f\u304b\uff1f \u306f\u3044 / \u3044\u3044\u3048", "connection_verification", "C"),
    ("\u0e04\u0e33\u0e15\u0e2d\u0e1a: A\n\n\u0e40\u0e21\u0e37\u0e48\u0e2d\u0e14\u0e39\u0e2d\u0e35"
     "\u0e01\u0e04\u0e23\u0e31\u0e49\u0e07 \u0e20\u0e32\u0e1e\u0e17\u0e31\u0e49\u0e07\u0e2a\u0e2d"
     "\u0e07\u0e15\u0e48\u0e2d\u0e01\u0e31\u0e19\u0e43\u0e19\u0e41\u0e19\u0e27\u0e1a\u0e19\u0e25\u0e48"
     "\u0e32\u0e07\n\n\u0e04\u0e33\u0e15\u0e2d\u0e1a\u0e2a\u0e38\u0e14\u0e17\u0e49\u0e32\u0e22: B", "connection_verification", "B"),
])
def test_twentyfirst_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


def test_the_prose_checks_of_an_order_share_one_sentence_filter():
    """The four checks of an order against its prose (regions, halves, rows, relations) read only the sentences
    that say a thing plainly; the Dutch hedge "of" is not found in "the top of"."""
    from jigsaw_puzzles.scoring.extraction.positions import (halves_said, plain_sentences, regions_said,
                                                               relations_disagree, row_sets_disagree)
    text = "Image 3 is the top-left. Image 2 might be the top-right. Image 1 is not the bottom-left"
    assert list(plain_sentences(text)) == ["Image 3 is the top-left"]
    assert list(plain_sentences("The top of image 2 is sky")) == ["The top of image 2 is sky"]
    assert list(plain_sentences("Maybe it is B", kinds=("negation",))) == ["Maybe it is B"]
    assert regions_said(text) == [(0, 3)]
    assert halves_said("Image 1 has the left half. Image 2 might have the right half.") == [(1, {0, 2})]
    assert row_sets_disagree("Images 3 and 4 form the top row.", [1, 2, 3, 4], 2, 2)
    assert not row_sets_disagree("If images 3 and 4 form the top row, fine.", [1, 2, 3, 4], 2, 2)
    assert relations_disagree("Image 4 is to the left of image 1.", [1, 2, 3, 4], 2, 2)
    assert not relations_disagree("Image 4 is not to the left of image 1.", [1, 2, 3, 4], 2, 2)


@pytest.mark.parametrize("text,config,answer", [
    # a position in brackets after the answer is no judgement of fit: what follows it is read ("right" in "bottom-right")
    ("D (bottom-right) is not it.", "piece_localization_hard", None),
    ("B (top-right) is wrong.", "piece_localization_easy", None),
    ("D (bottom-right) is the glorp blub.", "piece_localization_hard", None),
    ("The answer is D (bottom-right).", "piece_localization_hard", "D"),
    ("B (the right one)", "piece_localization_easy", "B"),
    ("The patch belongs to **B**.\n\n- A (top-left) is the sky.\n- D (bottom-right) is the crowd; the "
     "patch has no people.\n- B (top-right) is the top of the carousel, exactly what the patch shows.", "piece_localization_hard", "B"),
    # the answer disowned after a join in its explanation ("..., but it is wrong"); not another option's "it"
    ("B (the colours match), but it is wrong.", MPS, None),
    ("B because the colours match, but it is wrong.", MPS, None),
    ("B (the colours match), though I think it is wrong.", MPS, None),
    ("B. The sky continues, and it is not the answer.", MPS, None),
    ("B. A is similar, but it is wrong.", MPS, "B"),
    # chat residue: a message header with its time, disclosure marks, "Copied from Copilot", Discord's reply row
    ("Claude  APP  \u2014 Today at 10:42 AM\nC\n\n\u21a9\ufe0f Reply   \U0001f600 React", "connection_verification", "C"),
    ("Today at 10:42 AM\nC", "connection_verification", "C"),
    ("Today at 10:42 AM\nB. Today at noon the light is low so not sure", "connection_verification", None),
    ("\u56de\u7b54\u6848\u3092\u8868\u793a \u25bc\n\nC", "connection_verification", "C"),
    ("11:58 PM \xb7 Sent from my iPhone\n\n[9, 4, 1, 7, 3, 8, 2, 6, 5] \xb9\n\n\xb9 Copied from Copilo"
     "t\n\nCopilot may make mistakes.", "order_generation_3x3", "[9, 4, 1, 7, 3, 8, 2, 6, 5]"),
    # a confidence note, and "the original list stands:" after a withdrawal
    ("E \u2014 upper right. I'm only moderately sure.", "connection_verification_3x3_8dir", "E"),
    ("E or F, so I'm only moderately sure.", "connection_verification_3x3_8dir", None),
    ("[2, 7, 4, 9, 1, 6, 3, 8, 5]\n\nHmm, tile 9 has the chimney, which belongs above tile 1. Let me r"
     "edo the middle row: 1 goes left, 9 ... no wait, that was right. The original list stands: [2, 7,"
     " 4, 9, 1, 6, 3, 8, 5]", "order_generation_3x3", "[2, 7, 4, 9, 1, 6, 3, 8, 5]"),
    ("B. Wait. My answer stands: not C.", MPS, None),
    # "Why not the others:" heads lines that reject options: a likeness granted there keeps none open
    ("C\n\nWhy not the others:\n- A: the colours match, but the posts are offset.\n- B: lit from the l"
     "eft.", MPS, "C"),
    ("C\n\nOther candidates:\n- A: the colours match and it fits.", MPS, None),
    ("C\n\nWhy not D: honestly, I would pick D now.", MPS, None),
    # another option committed to after the answer, whatever stands before it (it was read as negated with the first)
    ("A. Not B, B is correct.", "connection_verification", None),
    ("A\n\nWhy not B: B is the answer.", "connection_verification", None),
    ("A. Not C or D, D is correct.", MPS, None),
    ("A. B is correct too.", "connection_verification", None),
    # Japanese chat residue
    ("\u56de\u7b54\u6848\u3092\u8868\u793a \u25bc\n\nC\n\n\u5171\u6709\u3057\u3066\u30a8\u30af\u30b9"
     "\u30dd\u30fc\u30c8    Google \u3067\u78ba\u8a8d", "missing_piece_selection_easy_3x3_k6", "C"),
    # dev_52's misreads: disowned after the answer ("but it's wrong", "the obvious decoy", "says otherwise", "none of the four lists")
    ("B. That's what a quick glance suggests, but it's wrong: with that order the sea ends up above th"
     "e sky.", MPS, None),
    ("D. This one's the obvious decoy, though: the real match is the mask right next to it.", "piece_localization_hard", None),
    ("B. It's the one with the sky.", MPS, "B"),
    ("H, which is what most people would pick at first, but the shadow under the fence says otherwise.", "connection_verification_3x3_8dir", None),
    ("C \u2014 juste pour r\xe9pondre quelque chose, car en r\xe9alit\xe9 aucune des quatre listes ne "
     "reconstruit correctement l'image.", OR_, None),
    ("C, because none of the other options fits.", OR_, "C"),
    # the answer named again after a turn, with words against it; a relative clause turned by "but" with a negation
    ("C. The grass texture in C continues the lawn, though honestly the fence post in C sits far too h"
     "igh for it to be the real piece.", MPS, None),
    ("C. The sky in C is bright, but C fits too.", MPS, "C"),
    ("La r\xe9ponse est C, qui semble correspondre au premier coup d'\u0153il, mais dont le bord gauch"
     "e ne se raccorde pas du tout \xe0 l'image.", MPS, None),
    ("The answer is C, which seems to match at first glance, but whose left edge does not connect at a"
     "ll.", MPS, None),
    ("The answer is C, which matches, but nothing else does.", MPS, "C"),
    # an anomaly's change said with the other ruled out, in another language; region names out of order in Chinese; bare rows
    ("Judgment: B\nError Position: A\nError Type: A\n\nPotongan kiri atas tampak dicerminkan, bukan di"
     "putar.", "anomaly_detection", None),
    ("Judgment: B\nError Position: A\nError Type: B\n\nPotongan kiri atas tampak dicerminkan, bukan di"
     "putar.", "anomaly_detection", "Judgment: B\nError Position: A\nError Type: B"),
    ("[4, 2, 1, 3]\n\u8a3b\uff1a\u4ee5\u4e0a\u4f9d\u300c\u5de6\u4e0a\u3001\u5de6\u4e0b\u3001\u53f3"
     "\u4e0a\u3001\u53f3\u4e0b\u300d\u7684\u9806\u5e8f\u6392\u5217\u3002", "order_generation_tabs", None),
    ("[4, 2, 1, 3]\n\u8a3b\uff1a\u4ee5\u4e0a\u4f9d\u300c\u5de6\u4e0a\u3001\u53f3\u4e0a\u3001\u5de6"
     "\u4e0b\u3001\u53f3\u4e0b\u300d\u7684\u9806\u5e8f\u6392\u5217\u3002", "order_generation_tabs", "[4, 2, 1, 3]"),
    ("G\xf3rny rz\u0105d: 4, 9, 2. \u015arodkowy: 7, 1, 5. Dolny: 3, 8, 6.\nOdpowied\u017a: [4, 9, 2, "
     "7, 5, 1, 3, 8, 6]", "order_generation_3x3", None),
    ("Oben: 4, 9, 2. Mitte: 7, 1, 5. Unten: 3, 8, 6.\nAntwort: [4, 9, 2, 7, 5, 1, 3, 8, 6]", "order_generation_3x3", None),
    # a table's "sí" under a header that asks whether it fits; not under one that asks what is ruled out
    ("Respuesta: A\n\n| Zona | \xbfCoincide con el recorte? |\n|---|---|\n| A | no |\n| B | no |\n| C "
     "| s\xed |\n| D | no |", "piece_localization_hard", None),
    ("| Zona | \xbfCoincide con el recorte? |\n|---|---|\n| A | no |\n| B | no |\n| C | s\xed |\n| D |"
     " no |", "piece_localization_hard", "C"),
    ("| Zona | \xbfDescartada? |\n|---|---|\n| A | s\xed |\n| B | no |", "piece_localization_hard", None),
    # dev_52's unread shapes: a Czech note restating the prompt's order; the 1-based note; a confidence bracket in Hindi
    ("[5, 1, 8, 3, 9, 2, 6, 4, 7]\nPozn\xe1mka: po\u0159ad\xed je po \u0159\xe1dc\xedch zleva doprava,"
     " jak bylo zad\xe1no.", "order_generation_3x3", "[5, 1, 8, 3, 9, 2, 6, 4, 7]"),
    ("[3, 1, 4, 2]\n\nNote: these are the 1-based image indices, in the order top-left, top-right, bot"
     "tom-left, bottom-right.", "order_generation", "[3, 1, 4, 2]"),
    ("[3, 1, 4, 2]\n\nNote: these are the 1-based image indices, in the order top-left, bottom-left, t"
     "op-right, bottom-right.", "order_generation", None),
    ("\u0909\u0924\u094d\u0924\u0930: C (\u0932\u0917\u092d\u0917 70% \u0928\u093f\u0936\u094d\u091a"
     "\u093f\u0924)\u0964", MPS, "C"),
    ("\u0909\u0924\u094d\u0924\u0930: C (\u0932\u0917\u092d\u0917 70% \u0928\u093f\u0936\u094d\u091a"
     "\u093f\u0924 \u0928\u0939\u0940\u0902)\u0964", MPS, None),
    # a verdict table whose option cells carry a relation's words in another language, which must agree with the letter
    ("\u0909\u0924\u094d\u0924\u0930: A\n\n| \u0935\u093f\u0915\u0932\u094d\u092a | \u092e\u0947\u0932"
     " \u0916\u093e\u0924\u093e \u0939\u0948? |\n|---|---|\n| A (\u0915\u094d\u0937\u0948\u0924\u093f"
     "\u091c) | \u0939\u093e\u0901 |\n| B (\u090a\u0930\u094d\u0927\u094d\u0935\u093e\u0927\u0930) | "
     "\u0928\u0939\u0940\u0902 |\n| C (\u0938\u091f\u0947 \u0939\u0941\u090f \u0928\u0939\u0940\u0902)"
     " | \u0928\u0939\u0940\u0902 |", "connection_verification", "A"),
    ("| \u0935\u093f\u0915\u0932\u094d\u092a | \u092e\u0947\u0932 \u0916\u093e\u0924\u093e \u0939"
     "\u0948? |\n|---|---|\n| A (\u090a\u0930\u094d\u0927\u094d\u0935\u093e\u0927\u0930) | \u0939"
     "\u093e\u0901 |\n| B (\u0915\u094d\u0937\u0948\u0924\u093f\u091c) | \u0928\u0939\u0940\u0902 |\n|"
     " C (\u0938\u091f\u0947 \u0939\u0941\u090f \u0928\u0939\u0940\u0902) | \u0928\u0939\u0940\u0902 |", "connection_verification", None),
    ("| \u0935\u093f\u0915\u0932\u094d\u092a | \u092e\u0947\u0932 \u0916\u093e\u0924\u093e \u0939"
     "\u0948? |\n|---|---|\n| A (\u0915\u094d\u0937\u0948\u0924\u093f\u091c) | \u0928\u0939\u0940"
     "\u0902 |\n| B (\u090a\u0930\u094d\u0927\u094d\u0935\u093e\u0927\u0930) | \u0928\u0939\u0940"
     "\u0902 |\n| C (\u0938\u091f\u0947 \u0939\u0941\u090f \u0928\u0939\u0940\u0902) | \u0939\u093e"
     "\u0901 |", "connection_verification", "C"),
    # chat feedback residue
    ("B\n\n---\nWas this response helpful? Yes / No", "piece_localization_easy", "B"),
    # an introducer form that opens a longer negation in a script without spaces ("从", "from", in "从未", "never") joins nothing
    ("\u4ece\u672a Judging by the colours, the answer is C.", "piece_localization_hard", None),
    ("\u4ece\u8fb9\u7f18\u6765\u770b\uff0c\u7b54\u6848\u662fC\u3002", "piece_localization_hard", "C"),
    # dev_53's shapes: a label of commitment, a caveat on one row, "looks most like", chat residue, "Why A (...):" heads an explanation
    ("Low confidence, but I'll commit: C.", "missing_piece_selection_easy_3x3_k6", "C"),
    ("My best guess is [1, 4, 3, 2], with low confidence on the bottom row.", "order_generation", "[1, 4, 3, 2]"),
    ("That said, the patch looks most like area B.", "piece_localization_easy", "B"),
    ("The patch looks like area B or C.", "piece_localization_easy", None),
    ("The patch looks nothing like area B.", "piece_localization_easy", None),
    ("[2, 4, 3, 1]\n\nClaude can make mistakes. Please double-check responses.\n\nRetry\n\nCopy\n\nSon"
     "net 4", "order_generation", "[2, 4, 3, 1]"),
    ("Judgment: B\nError Position: A\nError Type: A\n\n\u22ef\n\nEdited \xb7 Copy \xb7 Share \xb7 Repo"
     "rt\n12 views", "anomaly_detection_tabs", "Judgment: B\nError Position: A\nError Type: A"),
    ("Answer: E\xb9\n\n\xb9 Based on where the railway track leaves the first crop at its top-right co"
     "rner.\n\n\u2014 Copilot", "connection_verification_3x3_8dir", "E"),
    ("A\n\nWhy A:\n- Image 3 holds the lighthouse, so it goes top-left.", "missing_piece_selection_easy", "A"),
    ("A\n\nWhy B:\n- B fits best.", "missing_piece_selection_easy", None),
    # an answer key in other languages; another tag holding an answer (its name known, or none: then not read)
    ("{\"\u7b54\u6848\": \"G\"}\n\n<answer>H</answer>", "connection_verification_3x3_8dir", None),
    ("{\"\u7b54\u6848\": \"G\"}", "connection_verification_3x3_8dir", "G"),
    ("<risposta>B</risposta>\n{\"risposta\": \"C\"}", MPS, None),
    ("<foo>B</foo>", MPS, None),
    ("<b>B</b>", MPS, "B"),
    # a turn in a sentence that names the later answer before it is said against it, not a turn to it
    ("C\n\nThe tab on the patch's right side fits the notch at C. D is the other area with a notch, bu"
     "t it faces down.\n\nD", "piece_localization_hard_tabs", None),
    ("C is close, but D is better.\n\nD", "piece_localization_hard_tabs", "D"),
])
def test_twentysecond_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text, config, answer", [
    # twenty-third session (#43): dev_55 (the rule in other languages) - another answer ruled out by a negation said
    # after it ("A değil", "Aじゃなくて", "C নয়") before the answer, read as "not A but C" is
    ("Cevap A değil, C.", PLH, "C"),
    ("A değil, C.", PLH, "C"),
    ("AじゃなくてBです。", PLH, "B"),
    ("A、じゃなくてBです。", PLH, "B"),
    ("উত্তর C নয়, D।", PLH, "D"),
    # ... and the other side: the answer itself ruled out, the second one ruled out too, or asked
    ("Cevap A değil.", PLH, None),
    ("A değil, C değil.", PLH, None),
    ("Cevap A değil, C mi?", PLH, None),
    ("Aじゃなくて、Bでもない。", PLH, None),
    ("AじゃなくてBかな？", PLH, None),
    ("উত্তর C নয়।", PLH, None),
    ("উত্তর C নয়, D নয়।", PLH, None),
    ("Tahminim A değil.", PLH, None),
    # a relative clause that calls the answer wrong in Portuguese, Spanish, Italian (read as A before)
    ("A, que está errada.", MPS, None),
    ("A, que está equivocada.", MPS, None),
    ("A, che è sbagliata.", MPS, None),
    ("La respuesta es B. La C está equivocada, el tejado no sigue.", MPS, "B"),  # another option called wrong: B stands
    # lead-ins, withdrawals, guesses and confidence notes in other languages
    ("Como a borda de cima continua a linha do telhado, a resposta é C.", MPS, "C"),
    ("Відповідь: D. Ні, стоп, усе-таки B.", MPS, "B"),
    ("Đáp án là C. À không, đúng ra là A.", MPS, "A"),
    ("Je dirais B, sans en être sûr à 100 %.", MPS, "B"),
    ("Je dirais B, sans en être sûr que ce soit B plutôt que C.", MPS, None),
    # an explanation that opens "not because ..., but because ..."; not one that turns to another option
    ("选C。不是因为颜色相近，而是因为屋檐的线条正好能接上。", MPS, "C"),
    ("选C。不是因为C的颜色，我其实更喜欢D。", MPS, None),
    # a note that restates the prompt's order (row by row, left to right) in Spanish; not one that changes it
    ("[4, 2, 1, 3] (fila por fila, de izquierda a derecha, como pide el enunciado)", OG, "[4, 2, 1, 3]"),
    ("[4, 2, 1, 3] (columna por columna, de arriba abajo)", OG, None),
    # two options named together ("between B and D"), then one of them chosen; not an answer that is neither of them
    ("Between B and D, I choose D.", MPS, "D"),
    ("Between options B and D, B.", MPS, "B"),
    ("Between B and D, C.", MPS, None),
    ("Between B and D, the answer is C.", MPS, None),
    ("Between A and B, A fits better, but I choose C.", MPS, None),
    ("Entre B y D, elijo D.", MPS, "D"),
    ("Tra B e D, scelgo D.", MPS, "D"),
    ("Между B и D, выбираю D.", MPS, "D"),
    ("Entre B y D, elijo C.", MPS, None),
    ("Entre B y D, C.", MPS, None),
    # dev_56 (realistic): the worst match named after the best one; a footer of the model's name and stats; Korean chat
    # residue; a German correction; another option granted a likeness and ruled out by a word of change
    ("Best match: A\nWorst match: D\n\nA carries the stripes of the awning across the gap.", MPS, "A"),
    ("Worst match: D", MPS, None),
    ("Worst match: A\nBest match: D", MPS, "D"),
    ("Answer: [3, 4, 2, 1]\n\n\u2014 Generated by InternVL3-78B \u00b7 1.4 s \u00b7 312 tokens", OG, "[3, 4, 2, 1]"),
    ("Answer: [3, 4, 2, 1]\n\n\u2014 Generated by B \u00b7 1.4 s", OG, None),
    ("Judgment: A\nError Position:\nError Type:\n\n복사하기   다시 생성   👍 👎", "anomaly_detection_tabs",
     "Judgment: A\nError Position:\nError Type:"),
    ("Antwort: C. Moment \u2013 nein, das Fenster passt doch nicht dazu. Ich korrigiere auf A.", PLH, "A"),
    ("**A**\n\nA has exactly that shape. B has the right shape but shows grass; D is the right scene but its outline is "
     "mirrored.", PLH, "A"),
    ("A\n\nD is the right scene but, honestly, it may be better.", PLH, None),
    # a walk through the options whose sentences open with another option's list ("**A. [2, 1, 4, 3]** puts image 2 in
    # the top-left"): what that option does, not the answer; the answer's own list said against its regions still is not read
    ("Let me test each option:\n\n- **A. [2, 1, 4, 3]** puts image 2 (the grass) in the top-left, so the sky would be at the "
     "bottom. Rejected.\n- **D. [4, 3, 2, 1]** puts image 4 (the sky) in the top-left. Everything lines up.\n\n**D**", OR_, "D"),
    ("Let me test each option:\n\n- **D. [4, 3, 2, 1]** puts image 2 (the sky) in the top-left. Everything lines up.\n\n**D**",
     OR_, None),
    # "actually" inside a statement of where the piece belongs is no withdrawal of it
    ("A\n\nHmm \u2014 the bench is the decisive feature, not the leaves. So the patch actually belongs to B, not A.",
     "piece_localization_easy", "B"),
    ("The patch actually belongs to B or C.", "piece_localization_easy", None),
])
def test_twentythird_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text,config,answer", [
    # a structure under a short label line that sets its answer aside (the issue's "Incorrect\nB", as a structure)
    ("Incorrect:\n{\"answer\": \"B\"}", MPS, None),
    ("Incorrect:\n```yaml\nanswer: B\n```", MPS, None),
    ("Not the answer:\n{\"answer\": \"B\"}", MPS, None),
    ("Respuesta incorrecta:\n{\"answer\": \"B\"}", MPS, None),
    ("Final answer:\n{\"answer\": \"B\"}", MPS, "B"),
    ("Here is my answer in JSON:\n\n```json\n{\"answer\": \"B\"}\n```", MPS, "B"),
    ("Here's a breakdown of each option compared with the patch:\n\n| Option | Match? |\n|---|---|\n| A | \u274c |\n"
     "| B | \u2705 |\n\n**Answer: B**", MPS, "B"),
    # a note beside the answer that keeps another open, in any language (the table's hedges); not one that rules out
    ("{\"answer\": \"B\", \"confianza\": \"media, quiz\u00e1s C\"}", MPS, None),
    ("{\"\u7b54\u6848\": \"B\", \"\u7406\u7531\": \"\u4e5f\u8bb8\u662fC\"}", MPS, None),
    ("{\"\u7b54\u6848\": \"B\", \"\u7406\u7531\": \"\u5929\u7a7a\u7684\u989c\u8272\u76f8\u7b26\"}", MPS, "B"),
    ("{\"choice\": \"C\", \"reason\": \"The patch shows the edge of the green awning, only next to area C.\"}", PLH, "C"),
    # answer keys and reason keys in other languages; an unknown key still abstains
    ("{\"\u9009\u9879\": \"D\", \"\u987a\u5e8f\": [4, 3, 2, 1]}", OR_, "D"),
    ("{\"\u9009\u9879\": \"D\", \"\u987a\u5e8f\": [2, 1, 4, 3]}", OR_, None),
    ("{\"name\": \"submit_answer\", \"arguments\": {\"order\": [3, 4, 1, 2], \"\u7406\u7531\": \"\u56fe3\u548c\u56fe4\u662f\u5929\u7a7a\"}}",
     OG, "[3, 4, 1, 2]"),
    ("{\"name\": \"submit_answer\", \"arguments\": {\"order\": [3, 4, 1, 2], \"\u5907\u6ce8\": \"\u6216\u8005 [4, 3, 1, 2]\"}}", OG, None),
    ("```yaml\nrespuesta: B\nmotivo: la orilla del r\u00edo contin\u00faa de arriba abajo\n```", CV, "B"),
    # Anomaly Detection's fields as keys in another language; its values in that language too
    ("{\"Urteil\": \"B\", \"Fehlerposition\": \"D\", \"Fehlerart\": \"Spiegelung\"}", AD,
     "Judgment: B\nError Position: D\nError Type: B"),
    ("{\"Urteil\": \"B\", \"Fehlerposition\": \"D\", \"Hinweis\": \"Spiegelung\"}", AD, None),
    ("Judgment: B (\uc798\ubabb\ub428)\nError Position: C\nError Type: A", AD, "Judgment: B\nError Position: C\nError Type: A"),
    # Japanese and Chinese ReAct labels; not an action that is no submission
    ("\u884c\u52d5: submit_answer\n\u884c\u52d5\u5165\u529b: {\"answer\": \"B\"}", MPSH, "B"),
    ("\u884c\u52d5: zoom\n\u884c\u52d5\u5165\u529b: {\"label\": \"B\"}", MPSH, None),
    # rows split by " / ", numbers by "\u3001"; not a run that is no permutation
    ("Final order: 6 3 9 / 1 8 2 / 7 4 5", OG3, "[6, 3, 9, 1, 8, 2, 7, 4, 5]"),
    ("\u9806\u756a\uff1a3\u30011\u30012\u30014", OG, "[3, 1, 2, 4]"),
    ("\u9806\u756a\uff1a3\u30011\u30013\u30014", OG, None),
    # "still, my answer" after what cannot be seen, in Spanish and Portuguese; not a negated or hedged answer after it
    ("No puedo ver las im\u00e1genes con mucha claridad. Aun as\u00ed, mi respuesta es D.", MPSH, "D"),
    ("N\u00e3o consigo ver os detalhes muito bem, mas pelo que d\u00e1 para perceber, escolho a A.", PLE, "A"),
    ("N\u00e3o consigo ver os detalhes, mas pelo que d\u00e1 para perceber, n\u00e3o \u00e9 a A.", PLE, None),
    ("N\u00e3o consigo ver os detalhes, mas pelo que d\u00e1 para perceber, talvez a A ou a B.", PLE, None),
    # residue: a Turkish disclaimer, Chinese "sources", a model's name with stats above a bare answer, "3.2\u79d2"
    ("Cevap: C\n\nKopyala\nYeniden olu\u015ftur\nGemini hata yapabilir, bu nedenle yan\u0131tlar\u0131 kontrol edin.", MPS, "C"),
    ("Cevap: C\n\nGemini hata yapabilir, bu nedenle yan\u0131tlar\u0131 kontrol edin. Belki D.", MPS, None),
    ("\u56de\u7b54: D\n\n\u30b3\u30d4\u30fc\u3000\u518d\u751f\u6210\u3000\u5171\u6709\n\n\u23f1 3.2\u79d2", MPSH, "D"),
    ("qwen2.5-vl-72b-instruct \u00b7 1.2s \u00b7 14 tokens\nD", MPSH, "D"),
    ("R\u0103spuns: H\n\nCopiaz\u0103  \u00b7  Regenereaz\u0103\nClaude 3.5 Sonnet \u00b7 acum 2 min", "connection_verification_3x3_8dir", "H"),
    # labels and hedged commitments in Indonesian, French, Korean, German corrections
    ("Jadi, jawaban akhirnya adalah B.", PLH, "B"),
    ("Jadi, jawaban akhirnya bukan B.", PLH, None),
    ("Je dirais B, sans certitude absolue.", PLE, "B"),
    ("Reihenfolge: [2, 1, 3, 4]. Moment, Bild 1 enth\u00e4lt die linke obere Ecke. Korrigiert: [1, 2, 3, 4].", OG, "[1, 2, 3, 4]"),
])
def test_twentyfourth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, OPTIONS_17 if config == OR_ else None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


@pytest.mark.parametrize("text,config,answer", [
    # a concession after the answer opens a remark in any language (the table's ``concede``), judged as an explanation
    ("Probablemente D, aunque la iluminaci\u00f3n no coincide del todo con la del resto de la foto.", MPSH, "D"),
    ("Provavelmente D, embora a ilumina\u00e7\u00e3o n\u00e3o combine totalmente.", MPSH, "D"),
    ("Wahrscheinlich D, obwohl die Beleuchtung nicht ganz passt.", MPSH, "D"),
    ("D, \u0445\u043e\u0442\u044f \u043e\u0441\u0432\u0435\u0449\u0435\u043d\u0438\u0435 \u043d\u0435 \u0441\u043e\u0432\u0441\u0435\u043c "
     "\u0441\u043e\u0432\u043f\u0430\u0434\u0430\u0435\u0442.", MPSH, "D"),
    ("\u7b54\u6848\u662fD\uff0c\u867d\u7136\u5149\u7ebf\u4e0d\u5b8c\u5168\u4e00\u81f4\u3002", MPSH, "D"),
    ("D, although the lighting does not fully match.", MPSH, "D"),
    ("Creo que es D, aunque glorp.", MPSH, None),  # in another language, only one that speaks of the picture
    # ... but one that concedes another answer keeps it open, and one that disclaims sight disclaims the answer
    ("D, aunque C tambi\u00e9n encaja.", MPSH, None),
    ("Jawabannya B, walaupun A juga cocok.", CV, None),
    ("Svar: C, \u00e4ven om A ocks\u00e5 skulle kunna passa.", "missing_piece_selection_easy_3x3_k6", None),
    ("B, aunque no logro distinguir bien las im\u00e1genes.", MPSH, None),
    ("B, embora eu n\u00e3o consiga ver as imagens direito.", MPSH, None),
    ("B, obwohl ich die Bilder nicht richtig erkennen kann.", MPSH, None),
    ("B, bien que je ne puisse pas voir les images.", MPSH, None),
    ("B, \u867d\u7136\u6211\u770b\u4e0d\u6e05\u56fe\u7247\u3002", MPSH, None),
    ("B, meskipun saya tidak bisa melihat gambarnya.", MPSH, None),
    ("B, hoewel ik de afbeeldingen niet kan zien.", MPSH, None),
    # a turn ("but") opens a remark in English only: the thinner vocabularies cannot judge what follows it
    ("D, but the lighting is a bit off.", MPSH, "D"),
    ("Het antwoord is B, maar eerlijk gezegd weet ik het niet \u2014 ik heb de afbeeldingen niet kunnen bekijken.", MPSH, None),
    ("D, pero C encaja mejor.", MPSH, None),
    # a capital "A" inside a sentence is the option, not an article (only where a sentence, line or cell opens)
    ("B, walaupun A juga cocok.", CV, None),
    ("Answer: B. A strip of sky runs along the top of the patch.", PLE, "B"),
    ("1) A strip of sky matches; the answer is B.", MPS, "B"),
    # a hedge alone after a dash is no clause of its own, however many characters it has (the property test's find)
    ("The answer is A \u2014 \u4f55\u3068\u3082\u8a00\u3048\u307e\u305b\u3093.", CV, None),
    ("The answer is A \u2014 \u3069\u3061\u3089\u3068\u3082\u8a00\u3048\u307e\u305b\u3093.\nDefinitely not B.", CV, None),
    ("\u7b54\u6848\u662fA \u2014 \u8bf4\u4e0d\u51c6\u3002", CV, None),
    # another answer named again later in its sentence and ruled out there is not kept open
    ("B. Region A contains the shoreline, so A is ruled out.", PLE, "B"),
    ("B. Region A contains the shoreline, so A fits too.", PLE, None),
    # "from what is shown, ..." in other languages; a condition word inside a known lead-in sets no condition
    ("Por lo que se ve, la respuesta es A.", PLE, "A"),
    ("Pelo que se v\u00ea, a resposta \u00e9 A.", PLE, "A"),
    ("\u05dc\u05e4\u05d9 \u05de\u05d4 \u05e9\u05de\u05d5\u05e6\u05d2, \u05d4\u05ea\u05e9\u05d5\u05d1\u05d4 \u05d4\u05d9\u05d0 A.", PLE, "A"),
    ("Si se muestra, la respuesta es A.", PLE, None),
    ("Se a imagem estiver certa, a resposta \u00e9 A.", PLE, None),
])
def test_twenty_fifth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


CVX, OG, ROT = "connection_verification", "order_generation", "order_generation_2x2_rot"


@pytest.mark.parametrize("text, config, answer", [
    # a "but" inside what is said of a third option is no turn from the answer given first
    ("B\n\nCandidate 1 has the right colours but the cable is missing. Candidate 2 is too dark. That leaves Candidate 3, "
     "which is why Candidate 3 is correct.", MPSH, None),
    ("The answer is C. Image 2 has the sun, though, so the answer is D.", MPS, "D"),
    ("B. Hmm, but the seam of C lines up better, so the answer is C.", MPS, "C"),
    # another option said plainly to be the answer before it ("is clearly correct", "the most natural fit")
    ("C is clearly correct. Final answer: B", MPSH, None),
    ("Based on the lighting, option C is the most natural fit. Answer: B", MPSH, None),
    ("Considering the texture, C is clearly correct. Final answer: C", MPSH, "C"),
    # options walked through as items ("Candidate A: ...", "A — ...", numbered lines) commit to none of them
    ("Kandidaten:\n1. [2, 1, 4, 3] (am wahrscheinlichsten)\n2. [1, 2, 4, 3]", OG, None),
    ("1. [2, 1, 4, 3]\n2. [1, 2, 4, 3]", OG, None),
    ("* Candidate A: Back wheel only.\n* Candidate B: Front wheel and pedal.\n* Candidate C: Pavement only.\n\n"
     "**Answer:** The answer is **B**.", MPS, "B"),
    ("A \u2014 only sky. B \u2014 railing in the wrong colour. C \u2014 water. D \u2014 white railing ending at a pillar.\n\n"
     "D is the only one that satisfies both edges.", MPS, "D"),
    # the corners said before a rotated order must agree with it (in any language the table knows; Polish "o 90°" is
    # "by 90°", not Spanish "or"); a piece named in a comparison is not the one placed
    ("Lewy g\u00f3rny: obraz 3 obr\u00f3cony o 90\u00b0.\n[(2, 90), (3, 0), (1, 180), (4, 270)]", ROT, None),
    ("Image 3 goes top-left.\n[(2, 90), (3, 0), (1, 180), (4, 270)]", ROT, None),
    ("Lewy g\u00f3rny: obraz 2 obr\u00f3cony o 90\u00b0.\n[(2, 90), (3, 0), (1, 180), (4, 270)]", ROT,
     "[(2, 90), (3, 0), (1, 180), (4, 270)]"),
    ("Piece 3 goes top-left. Piece 4 has the road; turning it 90\u00b0 makes it horizontal like the road in piece 2 \u2014 "
     "bottom-left.\n\n[(3, 180), (1, 0), (4, 90), (2, 270)]", ROT, "[(3, 180), (1, 0), (4, 90), (2, 270)]"),
    ("The sky is in image 3 (top-left) and image 2 (top-right); the road starts in image 4 (bottom-left) and ends in "
     "image 1 (bottom-right).\n\n[3, 2, 4, 1]", OG, "[3, 2, 4, 1]"),
    ("The sky is in image 3 (top-left) and image 2 (top-right); the road starts in image 4 (bottom-left) and ends in "
     "image 1 (bottom-right).\n\n[3, 2, 1, 4]", OG, None),
    # a turn ("However, ...") to an option's words alone does not replace a labelled answer; a withdrawal that opens a
    # clause does ("the path actually enters" is no withdrawal)
    ("Answer: A\n\nHowever, when I look at the bottom edge of image 1 and the top edge of image 2, the path actually "
     "enters from above, which means they are stacked vertically.", CVX, None),
    ("Answer: A\n\nActually, looking again, they are stacked vertically.", CVX, "B"),
    ("C (not adjacent). Actually, they share the horizon line at the same height, so A \u2014 horizontal.", CVX, "A"),
    ("A\n\nwait no. B \u2014 they're stacked vertically.", "connection_verification_tabs", "B"),
])
def test_twenty_sixth_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


AN = "anomaly_detection"
_STAR_TABLE = ("| Option | Score (0-10) | Best? |\n|:-:|:-:|:-:|\n| A | 4 | |\n| B | 8 | \u2605 |\n| C | 6 | |\n| D | 7 | |")


@pytest.mark.parametrize("text, config, answer", [
    # a star under a column that asks which row is chosen marks that row; prose that names another gives two answers
    (_STAR_TABLE, MPSH, "B"),
    (_STAR_TABLE + "\n\nThe branch continues cleanly only in candidate 4, so the answer is **D**.", MPSH, None),
    ("| Option | Rating |\n|--|--|\n| A | \u2605 |\n| B | \u2605\u2605\u2605 |\n| C | \u2605\u2605 |\n| D | \u2605 |", MPSH, None),
    # an elimination that ends on another option before the answer ("only candidate 3 remains", "which leaves C")
    ("Candidates 1, 2 and 4 all have the lighting coming from the wrong side; only candidate 3 remains.\n\nAnswer: D",
     MPSH, None),
    ("A and B are too dark, which leaves C.\n\nAnswer: D", MPS, None),
    ("Candidates 1, 2 and 4 all have the lighting coming from the wrong side; only candidate 3 remains.\n\nAnswer: C",
     MPSH, "C"),
    # after a block that finds an anomaly, a sentence that says the whole picture is fine; "everything else" is not it
    ("Judgment: B\nError Position: D\nError Type: B\n\nEverything looks normal here; all four pieces line up.", AN, None),
    ("Judgment: B\nError Position: D\nError Type: B\n\nThe bottom-right tile is mirrored. Everything else looks normal.",
     AN, "Judgment: B\nError Position: D\nError Type: B"),
    # a disclaimer that the letter only fills the format; "can't be decided" in other languages
    ("A\n\n---\n*Disclaimer: this letter was selected only to satisfy the output format and does not reflect an analysis "
     "of the images.*", MPSH, None),
    ("Judgment: B\nError Position: B\nError Type: A\n\nVysv\u011btlen\u00ed: Prav\u00fd horn\u00ed d\u00edl nenavazuje. "
     "M\u016f\u017ee j\u00edt ale sp\u00ed\u0161 o zrcadlen\u00ed ne\u017e o oto\u010den\u00ed, z obr\u00e1zku se to ned\u00e1 "
     "rozhodnout.", AN, None),
    ("B\n\n\u5f88\u96be\u8bf4\u3002", MPS, None),
    # a concession that opens the sentence grants another option, then the answer stands; hedged, it stays open
    ("Although A looked right at first, the answer is C.", MPS, "C"),
    ("Aunque la A parec\u00eda correcta al principio, la respuesta es C.", MPS, "C"),
    ("Though A is close, I'd pick C.", MPS, "C"),
    ("Although A looked right, maybe the answer is C.", MPS, None),
    ("Even though A and B look close, the answer is C.", MPS, None),
    # a closing pleasantry in another language says nothing of the answer
    ("A\n\n\u00a1Espero que te sirva! Si necesitas algo m\u00e1s, aqu\u00ed estoy.", MPS, "A"),
    ("D\n\nSemoga membantu! \U0001f60a", MPS, "D"),
    ("C\n\n\u5e0c\u671b\u5bf9\u4f60\u6709\u5e2e\u52a9\uff01", MPS, "C"),
    ("A\n\nEspero que te sirva, aunque no s\u00e9.", MPS, None),
    # a reason in brackets in a script without Latin words: a word of fit the table knows, and nothing against it
    ("D\uff08\u80cc\u666f\u306e\u5c71\u306e\u7a1c\u7dda\u304c\u3064\u306a\u304c\u3063\u3066\u3044\u308b\u305f\u3081\uff09",
     "piece_localization_hard", "D"),
    ("D\uff08\u7a1c\u7dda\u304c\u3064\u306a\u304c\u3063\u3066\u3044\u306a\u3044\uff09", "piece_localization_hard", None),
    ("D\uff08B\u4e5f\u543b\u5408\uff09", "piece_localization_hard", None),
    # a reasoning field beside a structured answer is read as the reasoning before a text's answer: it may not conclude,
    # or say fits as a whole, another answer; an answer tag's attribute must agree with its text
    ('{"answer": "B", "reasoning": "The blank cuts through the red awning; candidate 3 is the only patch with the '
     'striped edge, so C."}', MPS, None),
    ('{"\u7b54\u6848": "D", "\u7406\u7531": "\u7b2c\u4e09\u4e2a\u5019\u9009\u56fe\u7684\u989c\u8272\u548c\u7eb9\u7406'
     '\u4e0e\u7a7a\u767d\u533a\u57df\u5468\u56f4\u5b8c\u5168\u4e00\u81f4"}', MPSH, None),
    ('{"answer": "C", "reasoning": "The blank cuts through the red awning; candidate 3 is the only patch with the '
     'striped edge, so C."}', MPS, "C"),
    ('{"answer": "B", "reasoning": "Candidate 2 continues the roof line; A is too dark and D shows sky."}', MPS, "B"),
    ('<answer option="B">Candidate 3 (the fourth input image)</answer>', MPSH, None),
    ('<answer option="C">Candidate 3 (the fourth input image)</answer>', MPSH, "C"),
    # an anomaly said in another language and taken back after a dash is no answer; a correct picture explained is
    ("Das Teil oben links ist gespiegelt \u2013 nein, eher gedreht, die Schatten zeigen in die falsche Richtung.", AN, None),
    ("La imagen est\u00e1 correcta: ninguna subimagen est\u00e1 girada ni reflejada.", AN,
     "Judgment: A\nError Position:\nError Type:"),
    # a confidence note in another language says nothing against the answer; a negated one is no such note
    ("C\n\n\u6211\u76f8\u7576\u78ba\u5b9a\u3002", MPS, "C"), ("C\n\nIch bin mir ziemlich sicher.", MPS, "C"),
    ("A\n\n\u3054\u53c2\u8003\u306b\u306a\u308c\u3070\u5e78\u3044\u3067\u3059\u3002", CVX, "A"),
    ("C\n\n\u0e44\u0e21\u0e48\u0e21\u0e31\u0e48\u0e19\u0e43\u0e08\u0e21\u0e32\u0e01", MPS, None),
    # rows with ideographic commas, keycap digits in a drawn grid
    ("\u7b2c\u4e00\u884c\uff1a8\u30013\u30016\n\u7b2c\u4e8c\u884c\uff1a1\u30015\u30019\n\u7b2c\u4e09\u884c\uff1a"
     "2\u30017\u30014", "order_generation_3x3", "[8, 3, 6, 1, 5, 9, 2, 7, 4]"),
    ("2\ufe0f\u20e3 4\ufe0f\u20e3\n1\ufe0f\u20e3 3\ufe0f\u20e3", OG, "[2, 4, 1, 3]"),
    ("2\ufe0f\u20e3 4\ufe0f\u20e3\n1\ufe0f\u20e3 4\ufe0f\u20e3", OG, None),
    # "the picture is wrong:" in another language before the tile it names; negated, it says nothing
    ("La imagen es incorrecta: la pieza inferior izquierda est\u00e1 girada 90 grados.", AN,
     "Judgment: B\nError Position: C\nError Type: A"),
    ("La imagen no es incorrecta: la pieza inferior izquierda est\u00e1 girada 90 grados.", AN, None),
    # the prompt's convention said again in another language after a rotated order; the other way round it abstains
    ("[(2, 0), (1, 180), (4, 90), (3, 270)]\n\uff08\u89d2\u5ea6\u5747\u4e3a\u987a\u65f6\u9488\u65b9\u5411\uff09", ROT,
     "[(2, 0), (1, 180), (4, 90), (3, 270)]"),
    ("[(2, 0), (1, 180), (4, 90), (3, 270)]\n\uff08\u89d2\u5ea6\u5747\u4e3a\u9006\u65f6\u9488\u65b9\u5411\uff09", ROT, None),
])
def test_twenty_seventh_session_shapes_both_ways(text, config, answer):
    ex = classify_response(text, config, None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)


_OPTS = ["[2, 4, 3, 1]", "[3, 2, 4, 1]", "[1, 3, 4, 2]", "[3, 1, 2, 4]"]


@pytest.mark.parametrize("text, answer", [
    ("The second option.", "B"), ("I pick the third option.", "C"), ("The last option.", "D"),
    ("La segunda opci\u00f3n.", "B"), ("The fifth option.", None), ("The first option or the second option.", None),
    ("The second option puts the sky at the bottom, so not that one. The first option.", "A"),
])
def test_order_restoration_options_by_their_place(text, answer):
    """Order Restoration's options named by their place in the list ("the second option"), as Missing Piece Selection's
    candidates are ("the third candidate")."""
    assert classify_response(text, "order_restoration", _OPTS).answer == answer


_FR_ROWS = ("Analyse des pi\u00e8ces :\n- Ligne du haut : la pi\u00e8ce 4 (ciel \u00e0 gauche), la pi\u00e8ce 9 (sommet de la tour), "
            "la pi\u00e8ce 2 (nuages).\n- Ligne du milieu : la pi\u00e8ce 3, la pi\u00e8ce 5 (corps de la tour), la pi\u00e8ce 7.\n"
            "- Ligne du bas : la pi\u00e8ce 8 (pelouse), la pi\u00e8ce 1 (base de la tour), la pi\u00e8ce 6.\n\nOrdre final : ")
_UK = ("\u041f\u043e\u0440\u044f\u0434\u043e\u043a: {}\n\n\u041f\u043e\u044f\u0441\u043d\u0435\u043d\u043d\u044f: \u0437\u0432\u0435\u0440\u0445\u0443 "
       "\u043b\u0456\u0432\u043e\u0440\u0443\u0447 \u2014 \u0437\u043e\u0431\u0440\u0430\u0436\u0435\u043d\u043d\u044f 2, \u0437\u0432\u0435\u0440\u0445\u0443 "
       "\u043f\u0440\u0430\u0432\u043e\u0440\u0443\u0447 \u2014 3, \u0437\u043d\u0438\u0437\u0443 \u043b\u0456\u0432\u043e\u0440\u0443\u0447 \u2014 4, "
       "\u0437\u043d\u0438\u0437\u0443 \u043f\u0440\u0430\u0432\u043e\u0440\u0443\u0447 \u2014 1.")


@pytest.mark.parametrize("text, config, answer", [
    # a concession that opens the sentence in Chinese ("虽然 ..., 但 ...") or closes its clause in Korean ("-지만,")
    ("虽然一开始觉得是 A，但仔细看应该是 C。", MPS, "C"),
    ("尽管A很像，但我选C。", MPS, "C"),
    ("虽然是 A，但 C 也有可能。", MPS, None),
    ("B가 더 그럴듯해 보이지만, 정답은 A입니다.", MPS, "A"),
    ("B라고 생각했지만, 다시 보니 정답은 A입니다.", MPS, "A"),
    ("B가 더 그럴듯해 보이지만, C도 가능하고 정답은 A입니다.", MPS, None),
    ("B가 정답이지만, A도 가능합니다.", MPS, None),
    # per-option verdicts in Chinese, Japanese and Korean: the final answer must be the one judged a fit
    ("A：不適合\nB：適合\nC：不適合\nD：不適合\n\n最終答案：D", MPSH, None),
    ("A：不适合\nB：适合\nC：不适合\nD：不适合\n\n最终答案：D", MPSH, None),
    ("A：不適合\nB：適合\nC：不適合\nD：不適合\n\n最終答案：B", MPSH, "B"),
    ("A: 맞지 않음\nB: 맞음\nC: 맞지 않음\nD: 맞지 않음\n\n최종 답: D", MPSH, None),
    ("A: 맞지 않음\nB: 맞음\nC: 맞지 않음\nD: 맞지 않음\n\n최종 답: B", MPSH, "B"),
    # regions and rows said in more languages, with image nouns beside the numbers, must agree with the order
    (_UK.format("[2, 4, 3, 1]"), OG, None),
    (_UK.format("[2, 3, 4, 1]"), OG, "[2, 3, 4, 1]"),
    (_FR_ROWS + "[4, 9, 2, 3, 5, 7, 8, 6, 1]", OG3, None),
    (_FR_ROWS + "[4, 9, 2, 3, 5, 7, 8, 1, 6]", OG3, "[4, 9, 2, 3, 5, 7, 8, 1, 6]"),
    ("שורה עליונה: 7, 1, 4\nשורה אמצעית: 2, 9, 5\nשורה תחתונה: 8, 3, 6", OG3, "[7, 1, 4, 2, 9, 5, 8, 3, 6]"),
    # a note that renumbers the order, in Spanish
    ("[3, 1, 2, 4]\n(Cada número es la posición donde va la pieza correspondiente.)", OG, None),
    # answer and reasoning keys in more languages; the reasoning still must not conclude another answer
    ('{"respuesta": "B"}', PLH, "B"),
    ('{"الإجابة": "C", "السبب": "لا يوجد حد مشترك بين القطعتين."}', CV, "C"),
    ('{"thu_tu": [3, 4, 1, 2], "giai_thich": "Ảnh 3 và 4 chứa bầu trời nên ở hàng trên."}', OG, "[3, 4, 1, 2]"),
    ('{"respuesta": "B", "razonamiento": "La zona C coincide mejor, así que C."}', PLH, None),
    ('{"answer": "B", "السبب": "المنطقة C هي الأنسب، لذلك C."}', PLH, None),
    # confidence notes with their intensifiers; "if I had to guess" in more languages
    ("Acho que é a B, mas não tenho certeza absoluta.", MPS, "B"),
    ("أعتقد أن الإجابة هي D، لكنني لست متأكدًا تمامًا.", MPS, "D"),
    ("No puedo ver las imágenes adjuntas, pero si tuviera que adivinar, diría que la B.", MPS, "B"),
    ("No puedo ver las imágenes, pero si tuviera que adivinar, diría que la B o la C.", MPS, None),
    # a runner-up labelled after the answer in another language is ranked below it, unless it is kept open
    ("答案：B，其次是D。", MPSH, "B"),
    ("Resposta: D\nSegunda opção: B", MPSH, "D"),
    ("Meine Wahl: C. Zweitbeste Option wäre A.", PLH, "C"),
    ("答案：B，其次是D，也可能是D。", MPSH, None),
    ("Resposta: D\nSegunda opção: B, talvez melhor.", MPSH, None),
    # "I think" in Chinese and "my guess is" in Hindi as lead-ins
    ("我觉得应该是B。", MPS, "B"),
    ("我觉得应该是B或者C。", MPS, None),
    ("मेरा अनुमान है कि उत्तर C है।", MPSH, "C"),
    # a structure under a line that calls it a draft is no commitment
    ('Draft answer:\n{"answer": "A"}\n\nLooking closer, the edges do not fit horizontally. The draft is wrong.', CV, None),
    ('Borrador de la respuesta:\n{"respuesta": "A"}', CV, None),
    ('Respuesta:\n{"respuesta": "A"}', CV, "A"),
    # a list in lenticular brackets; lower-case letters beside CJK and Hangul; Korean "not B" in brackets
    ("【2，1，4，3】", "order_generation_tabs", "[2, 1, 4, 3]"),
    ("정답은 d 입니다", MPS, "D"), ("答案是d", MPS, "D"), ("图c中有天空，答案是B", MPS, None),
    ("정답: D (B가 아님)", PLH, "D"), ("정답: D (D가 아님)", PLH, None),
    # anomaly fields labelled in Japanese and Hindi, a dash for an empty field, a Polish place beside the letter
    ("判定：誤り\nエラーの位置：左下\nエラーの種類：回転", AD, "Judgment: B\nError Position: C\nError Type: A"),
    ("निर्णय: A\nत्रुटि की स्थिति: —\nत्रुटि का प्रकार: —", AD, "Judgment: A\nError Position:\nError Type:"),
    ("Ocena: B\nPozycja błędu: E (środek)\nTyp błędu: A", "anomaly_detection_3x3", "Judgment: B\nError Position: E\nError Type: A"),
    ("Ocena: B\nPozycja błędu: E (lewy górny)\nTyp błędu: A", "anomaly_detection_3x3", None),
    # closing pleasantries, signatures and the prompt's reading order in more languages; a question still is none
    ("B\n\n希望对你有帮助！如果还有其他问题，欢迎继续提问。", MPS, "B"),
    ("Ответ: A\n\nНадеюсь, это помогло! Если нужно, могу объяснить подробнее.", CV, "A"),
    ("D\n\nChúc bạn một ngày tốt lành!\n\n— Trợ lý AI", PLH, "D"),
    ("Orden: [2, 4, 1, 3] (superior izquierda, superior derecha, inferior izquierda, inferior derecha)", OG, "[2, 4, 1, 3]"),
    ("Orden: [2, 4, 1, 3] (inferior izquierda, superior derecha, superior izquierda, inferior derecha)", OG, None),
    ("B\n\n希望对你有帮助！还是C更好？", MPS, None),
])
def test_twenty_eighth_session_shapes_both_ways(text, config, answer):
    """Shapes from the blind files in other languages (dev_62, dev_63), each with its twin that must stay unread: a
    concession in Chinese or Korean, per-option verdicts in CJK, regions and rows said in more languages, answer and
    reasoning keys, confidence notes, "if I had to guess", runners-up, "I think", and a structure called a draft."""
    ex = classify_response(text, config, None)
    assert ex.answer == answer, ex.detail
    assert ex.strict in (None, answer)
