"""The README opens with the two commands (main job, tests), and CI runs the test command exactly as written."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    block = (ROOT / "README.md").read_text(encoding="utf-8").split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("   #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_readme_opens_with_the_main_job_and_the_tests():
    main_job, tests = readme_commands()
    assert "jigsaw-puzzles eval --model solver --split lite" in main_job
    assert tests.startswith("python -m venv .venv && . .venv/bin/activate && ")  # run in a venv, as users do
    assert tests.endswith('python -m pytest -q -m "not slow" tests')  # the fast tier (issue #44 5)


def test_ci_runs_the_readme_test_command_verbatim():
    _, tests = readme_commands()
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert tests in ci, "the README's test command must be a line of .ci/run, as written"
    slow = [k for k, line in enumerate(ci) if line.startswith("python -m pytest -q -m slow tests")]
    assert slow and slow[0] > ci.index(tests), "CI runs the slow tier after the fast one"
    said = (ROOT / "README.md").read_text(encoding="utf-8").split("slow tier: `", 1)[1].split("`", 1)[0]
    assert ci[slow[0]].split("   #", 1)[0].strip() == said, "the README names the slow tier's command as CI runs it"
