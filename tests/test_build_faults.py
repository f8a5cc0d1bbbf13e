"""Bad files and folders never abort a build nor vanish silently (Trust issue, building side)."""

from __future__ import annotations

import io
import json
import os
import random
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image

from fixtures.photos import make_photo, write_photos
from jigsaw_puzzles import load_dataset, make_builder
from jigsaw_puzzles.errors import ConfigUnavailable, UserError
from jigsaw_puzzles.scoring.score import score
from jigsaw_puzzles.generation.sources import load_normalised, read_source
from jigsaw_puzzles.generation.curation import curate


#: The exact answer plan (letters balanced to one item), for the tests that count letters on a handful of items.
BALANCED: dict = {"answer_plan": "balanced"}  # exact balance checks need the exact plan


def build(folder, tmp_path, config="order_generation"):
    return load_dataset(config, source=folder, cache_dir=str(tmp_path / "cache"))


@pytest.mark.slow
def test_broken_symlinks_loops_and_a_panorama_are_rejected_with_reasons(tmp_path):
    folder = tmp_path / "photos"
    write_photos(folder, 3)
    (folder / "broken.jpg").symlink_to(tmp_path / "does_not_exist.jpg")
    (folder / "loop_a.jpg").symlink_to(folder / "loop_b.jpg")
    (folder / "loop_b.jpg").symlink_to(folder / "loop_a.jpg")
    make_photo(4, (45000, 300)).save(folder / "panorama.png")
    curation = curate(folder)
    reasons = {r.path: r.reason for r in curation.records if r.status == "rejected"}
    assert set(reasons) == {"broken.jpg", "loop_a.jpg", "loop_b.jpg", "panorama.png"}
    assert "unreadable" in reasons["broken.jpg"] and "aspect ratio" in reasons["panorama.png"]
    assert len(build(folder, tmp_path)) == 3


def test_a_header_whose_height_normalises_to_zero_is_a_reason_not_a_crash(tmp_path):
    folder = tmp_path / "photos"
    write_photos(folder, 2)
    make_photo(5, (5000, 220)).save(folder / "thin.png")  # long side capped: the height would round to ~0
    reasons = {r.path: r.reason for r in curate(folder).records if r.status == "rejected"}
    assert "thin.png" in reasons


def _mutations(rng: random.Random, good: dict[str, bytes]):
    for k in range(240):
        fmt = ("jpg", "png", "webp")[k % 3]
        data = bytearray(good[fmt])
        kind = k % 4
        if kind == 0:  # truncation
            data = data[: rng.randrange(1, len(data))]
        elif kind == 1:  # flipped header bytes
            for _ in range(rng.randrange(1, 6)):
                i = rng.randrange(0, min(64, len(data)))
                data[i] ^= 1 << rng.randrange(8)
        elif kind == 2:  # flipped bytes anywhere
            for _ in range(rng.randrange(1, 20)):
                i = rng.randrange(len(data))
                data[i] = rng.randrange(256)
        elif fmt == "png":  # absurd size in the IHDR (CRC fixed so the header parses)
            w, h = rng.choice([(0, 100), (100, 0), (1 << 30, 1 << 30), (70000, 1)])
            ihdr = struct.pack(">II", w, h) + bytes(data[24:29])
            data[16:29] = ihdr
            data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
        else:
            data = data[: len(data) // 2] + bytes(rng.randrange(256) for _ in range(64))
        yield f"fuzz_{k:03d}.{fmt}", bytes(data)


@pytest.mark.slow
def test_fuzzed_files_are_each_named_and_the_rest_builds(tmp_path):
    folder = tmp_path / "photos"
    write_photos(folder, 4)
    good = {}
    for fmt, pil in (("jpg", "JPEG"), ("png", "PNG"), ("webp", "WEBP")):
        buf = io.BytesIO()
        make_photo(9, (120, 96)).save(buf, format=pil)
        good[fmt] = buf.getvalue()
    names = []
    for name, data in _mutations(random.Random(0), good):
        (folder / name).write_bytes(data)
        names.append(name)
    curation = curate(folder)
    by_path = {r.path: r for r in curation.records}
    assert set(names) <= set(by_path)  # every file has a verdict
    for name in names:
        record = by_path[name]
        assert record.status == "accepted" or record.reason, name
    assert len(build(folder, tmp_path)) == len(curation.accepted)


def test_symlinked_folders_are_walked_once_and_loops_recorded(tmp_path):
    real = tmp_path / "real"
    write_photos(real, 2)
    folder = tmp_path / "photos"
    write_photos(folder, 1, start=10)
    (folder / "linked").symlink_to(real, target_is_directory=True)
    (folder / "again").symlink_to(real, target_is_directory=True)
    (real / "up").symlink_to(folder, target_is_directory=True)  # a loop back to the top
    curation = curate(folder)
    accepted = sorted(s.relpath for s in curation.accepted)
    assert len(accepted) == 3 and any(p.startswith(("linked/", "again/")) for p in accepted)
    reasons = {r.path: r.reason for r in curation.records if r.status == "rejected"}
    assert any("already walked" in r for r in reasons.values())


LIST_AS_NOBODY = r"""
import os, sys, json
import tqdm.auto  # everything imported first: the interpreter's own files may not be readable by nobody
import scipy.fftpack  # imagehash.phash (the near-duplicate rule) imports it lazily
from jigsaw_puzzles.generation.curation import curate
import jigsaw_puzzles.generation.workers, concurrent.futures.process  # imported lazily by curate
os.setgid(65534); os.setuid(65534)
c = curate(sys.argv[1])
print(json.dumps([[r.path, r.status, r.reason] for r in c.records]))
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to drop privileges")
def test_an_unreadable_subfolder_is_recorded_not_dropped(tmp_path):
    import json
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="jp-nobody-"))  # pytest's own tmp folders are root-only
    os.chmod(base, 0o755)
    folder = base / "photos"
    write_photos(folder, 1)
    write_photos(folder / "private", 1, start=5)
    os.chmod(folder / "private", 0o700)
    for p in (folder, *folder.glob("*.jpg")):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    env = {**os.environ, "HOME": str(base), "HF_HOME": str(base / "hf")}
    try:
        proc = subprocess.run([sys.executable, "-c", LIST_AS_NOBODY, str(folder)], capture_output=True, text=True,
                              env=env, timeout=300)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ["private/", "rejected", "unreadable folder: permission denied"] in records


def test_an_overwritten_file_is_never_served_from_a_stale_cache(tmp_path):
    path = tmp_path / "photo.png"
    make_photo(1, (480, 360)).save(path)
    first = load_normalised(str(path))
    make_photo(2, (480, 360)).save(path)
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1_000_000))
    second = load_normalised(str(path))
    assert read_source(path)[1].tobytes() == second.tobytes() != first.tobytes()


@pytest.mark.parametrize("reference", ["Judgment: A\nError Position: \nError Type: ", "Judgment: A\r\nError Position:\r\nError Type:\r\n",
                                       " judgment: a\nerror position:\nerror type:"])
def test_anomaly_references_are_normalised_like_predictions(reference):
    result = score(["Judgment: A\nError Position:\nError Type:"], [reference], "anomaly_detection")
    assert result["anomaly_detection"]["accuracy"] == 100.0


@pytest.mark.parametrize("reference, config", [("b ", "piece_localization_easy"), ("[2,3,1,4]", "order_generation")])
def test_other_references_are_normalised(reference, config):
    answer = "B" if config.startswith("piece") else "[2, 3, 1, 4]"
    assert score([answer], [reference], config)[config]["accuracy"] == 100.0


@pytest.mark.parametrize("reference, config", [("E", "piece_localization_hard"), ("Judgment: B", "anomaly_detection"),
                                               ("[1, 1, 2, 3]", "order_generation")])
def test_malformed_references_are_still_refused(reference, config):
    with pytest.raises(ValueError, match="not a valid"):
        score(["A"], [reference], config)


# ----------------------------------------------------------------------------- item 5: siblings of one bad file

FIFO_AND_DEVICE = r"""
import json, os, sys
from jigsaw_puzzles import load_dataset
from jigsaw_puzzles.generation.curation import curate
folder = sys.argv[1]
c = curate(folder)
rows = load_dataset("order_generation", source=folder, cache_dir=sys.argv[2])
print(json.dumps({"reasons": {r.path: r.reason for r in c.records if r.status != "accepted"}, "rows": len(rows)}))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_or_a_device_is_rejected_without_being_read(tmp_path):
    """A blocking read of a pipe (or of /dev/zero) would hang the build: a subprocess with a time limit."""
    import json

    folder = tmp_path / "photos"
    write_photos(folder, 2)
    os.mkfifo(folder / "pipe.jpg")
    (folder / "zero.png").symlink_to("/dev/zero")
    try:
        proc = subprocess.run([sys.executable, "-c", FIFO_AND_DEVICE, str(folder), str(tmp_path / "cache")],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail("curating a folder with a named pipe or a device did not finish (a blocking read)")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["reasons"] == {"pipe.jpg": "not a regular file: a named pipe",
                              "zero.png": "not a regular file: a character device"}
    assert got["rows"] == 2


def test_a_file_name_that_is_not_utf8_is_curated_and_reported(tmp_path):
    folder = tmp_path / "photos"
    write_photos(folder, 2)
    make_photo(7).save(os.fsdecode(os.fsencode(folder) + b"/caf\xe9.jpg"), format="JPEG", quality=92)
    (folder / "notes\udce9.txt").write_text("a Latin-1 name that is not a photo")
    curation = curate(folder)  # the fingerprint used to encode names as UTF-8 and abort
    verdicts = {r.path: r.status for r in curation.records}
    assert verdicts == {"caf\\xe9.jpg": "accepted", "notes\\xe9.txt": "rejected",
                        "photo_000.jpg": "accepted", "photo_001.jpg": "accepted"}
    assert len(build(folder, tmp_path)) == 3


def test_a_file_too_large_for_a_photograph_is_not_read(tmp_path, monkeypatch):
    from jigsaw_puzzles.generation import sources

    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 5_000_000)
    folder = tmp_path / "photos"
    write_photos(folder, 1)
    with open(folder / "video.jpg", "wb") as f:  # sparse: no disk used
        f.truncate(5_000_001)
    reasons = {r.path: r.reason for r in curate(folder).records if r.status == "rejected"}
    assert reasons == {"video.jpg": "file too large: 5000001 bytes > 5000000 (no photograph is that big)"}


def _photo_bytes(seed: int, size=(480, 360)) -> dict[str, bytes]:
    """One photo as JPEG, PNG, WebP and an EXIF-rotated JPEG: the bases of the mutations."""
    photo, out = make_photo(seed, size), {}
    for key, fmt, kwargs in (("jpg", "JPEG", {"quality": 90}), ("png", "PNG", {}), ("webp", "WEBP", {"quality": 80}),
                             ("exif", "JPEG", {"quality": 90, "exif": _orientation(6)})):
        buf = io.BytesIO()
        photo.save(buf, format=fmt, **kwargs)
        out[key] = buf.getvalue()
    return out


def _orientation(value: int) -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = value
    return exif


def _jpeg_size_offset(data: bytes) -> int | None:
    """Offset of the (height, width) pair of a JPEG's start-of-frame segment."""
    i = 2
    while i < len(data) - 9:
        if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC1, 0xC2):
            return i + 5
        if data[i] == 0xFF and data[i + 1] not in (0x00, 0xFF):
            i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
        else:
            i += 1
    return None


ABSURD = [(0, 300), (300, 0), (1, 65535), (65535, 1), (45000, 300), (300, 45000), (65535, 65535), (257, 2304),
          (5000, 1), (16383, 16383)]


def _mutate(rng: random.Random, good: dict[str, bytes], k: int) -> tuple[str, bytes]:
    key = ("jpg", "png", "webp", "exif")[k % 4]
    data = bytearray(good[key])
    kind = (k // 4) % 6
    if kind == 0:  # truncated anywhere
        data = data[: rng.randrange(1, len(data))]
    elif kind == 1:  # flipped bits in the header
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(0, min(200, len(data)))] ^= 1 << rng.randrange(8)
    elif kind == 2:  # random bytes anywhere
        for _ in range(rng.randrange(1, 30)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == 3:  # absurd sizes in the header (JPEG SOF, PNG IHDR with its CRC fixed, WebP VP8 frame)
        w, h = rng.choice(ABSURD)
        if key in ("jpg", "exif"):
            at = _jpeg_size_offset(data)
            data[at:at + 4] = struct.pack(">HH", h, w)
        elif key == "png":
            ihdr = struct.pack(">II", w, h) + bytes(data[24:29])
            data[16:29] = ihdr
            data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
        else:
            at = data.find(b"\x9d\x01\x2a")
            data[at + 3:at + 7] = struct.pack("<HH", w & 0x3FFF, h & 0x3FFF)
    elif kind == 4:  # cut in half and garbage appended
        data = data[: len(data) // 2] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 512)))
    else:  # a stretch of the header repeated
        a = rng.randrange(0, min(400, len(data)))
        b = rng.randrange(a, min(a + 200, len(data)))
        data[a:a] = data[a:b] * rng.randrange(1, 4)
    return f"fuzz_{k:03d}.{'jpg' if key == 'exif' else key}", bytes(data)


@pytest.mark.slow
def test_fuzzed_full_size_photos_get_a_verdict_and_every_task_builds_the_rest(tmp_path):
    """Mutations of full-size photos (which get past the size rules into normalisation, the quality checks and
    the tasks), absurd header sizes in each format included; the export of every plain config finishes."""
    import json

    from jigsaw_puzzles.publishing.export import build as export

    folder = tmp_path / "photos"
    write_photos(folder, 5)
    good, rng, names = _photo_bytes(9), random.Random(1), []
    for k in range(300):
        name, data = _mutate(rng, good, k)
        (folder / name).write_bytes(data)
        names.append(name)
    configs = ["missing_piece_selection_easy", "piece_localization_easy", "connection_verification",
               "anomaly_detection", "order_restoration", "order_generation"]
    report = export(tmp_path / "out", source=str(folder), configs=configs, num_proc=1, cache_dir=str(tmp_path / "c"))
    records = {r["path"]: r for r in json.loads((tmp_path / "out" / "curation_report.json").read_text())
               ["curation"]["records"]}
    assert set(names) <= set(records)
    assert all(records[n]["status"] == "accepted" or records[n]["reason"] for n in names)
    accepted = [r for r in records.values() if r["status"] == "accepted"]
    assert 5 <= len(accepted) < 100  # the good photos and the mutations that still decode
    for config in configs:
        counts = report["configs"][config]
        assert counts["test"] + len(counts["task_skips"]) == len(accepted), config


# ----------------------------------------------------------------------------- item 6: whole folders

REACH_AS_NOBODY = r"""
import json, os, sys
import tqdm.auto  # imported before dropping privileges
from jigsaw_puzzles.errors import UserError
from jigsaw_puzzles.generation.curation import curate
os.setgid(65534); os.setuid(65534)
out = {}
for folder in sys.argv[1:]:
    try:
        c = curate(folder)
        out[folder] = ["curated", len(c.accepted), len(c.records)]
    except UserError as err:
        out[folder] = ["UserError", type(err).__name__, str(err)]
    except Exception as err:
        out[folder] = ["crash", type(err).__name__, str(err)]
print(json.dumps(out))
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to drop privileges")
def test_a_source_folder_nobody_can_read_is_one_user_error(tmp_path):
    """As an unprivileged user: a closed source folder, one behind a closed parent, one whose only subfolder is
    closed. Each is a UserError that says what to do, never a traceback nor "0 of 0 files"."""
    import json
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="jp-nobody-"))
    os.chmod(base, 0o755)
    cases = {"closed": base / "closed", "behind": base / "parent" / "photos", "inner": base / "inner"}
    write_photos(cases["closed"], 1)
    write_photos(cases["behind"], 1)
    write_photos(cases["inner"] / "private", 1)
    for path, mode in ((cases["closed"], 0o700), (base / "parent", 0o700), (cases["behind"], 0o755),
                       (cases["inner"], 0o755), (cases["inner"] / "private", 0o700)):
        os.chmod(path, mode)
    try:
        proc = subprocess.run([sys.executable, "-c", REACH_AS_NOBODY, *map(str, cases.values())],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "HOME": str(base), "HF_HOME": str(base / "hf")})
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = {Path(k).name if Path(k).name != "photos" else "behind": v
           for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}
    assert got["closed"][:2] == ["UserError", "SourceFolderError"] and "not readable" in got["closed"][2]
    assert got["behind"][:2] == ["UserError", "SourceFolderError"] and "Permission denied" in got["behind"][2]
    assert got["inner"][:2] == ["UserError", "SourceFolderError"]
    assert "private/ unreadable folder: permission denied" in got["inner"][2]
    assert "put JPEG, PNG or WebP photographs in it" in got["inner"][2]


@pytest.mark.parametrize("case", ["empty", "hidden only", "file"])
def test_a_source_that_holds_nothing_is_one_user_error(case, tmp_path):
    source = tmp_path / "photos"
    if case == "file":
        make_photo(1).save(tmp_path / "photo.jpg")
        source = tmp_path / "photo.jpg"
    else:
        source.mkdir()
        if case == "hidden only":
            make_photo(1).save(source / ".hidden.jpg")
    with pytest.raises(UserError) as err:
        curate(source)
    says = {"file": "not a file", "empty": "it is empty", "hidden only": "it is empty"}[case]
    assert says in str(err.value) and not isinstance(err.value, ConfigUnavailable)
    with pytest.raises(UserError, match=says):
        load_dataset("order_generation", source=source, cache_dir=str(tmp_path / "cache"))


# ----------------------------------------------------------------------------- items 7 and 8: skips, not drops

def twin_tiles(folder: Path, count: int = 2, amp: int = 3) -> None:
    """``count`` photos of one tile of blocky noise repeated 3x3, each with its own faint blocky shading: their dHashes
    differ (not near duplicates), yet every 3x3 cell of one looks like every cell of the others. With two of
    them in a pool of four, no Missing Piece item finds three distinct distractors."""
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    blocks = np.random.default_rng(7).normal(128, 30, size=(30, 40, 3))  # 4x4-pixel blocks: noise has no structure
    base = np.tile(np.kron(blocks, np.ones((4, 4, 1))), (3, 3, 1))
    h, w = base.shape[:2]
    for k in range(count):
        signs = np.random.default_rng(500 + k).choice([-amp, amp], size=(8, 9))
        shade = np.kron(signs, np.ones((h // 8 + 1, w // 9 + 1)))[:h, :w]
        Image.fromarray(np.clip(base + shade[..., None], 0, 255).astype(np.uint8)).save(folder / f"tile_{k}.png")


def near_identical(folder: Path, count: int, amp: int = 7) -> None:
    """``count`` copies of one photo, each with its own left third (another photo's) and its own blocky +-amp
    shading: accepted by curation (not near duplicates: a third of each differs), but a cell of one's right
    two thirds is within 8 grey levels of the same cell of another."""
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    base = np.asarray(make_photo(0), dtype=np.int16)
    h, w = base.shape[:2]
    for k in range(count):
        signs = np.random.default_rng(1000 + k).choice([-amp, amp], size=(8, 9))
        shade = np.kron(signs, np.ones((h // 8 + 1, w // 9 + 1)))[:h, :w]
        own = base.copy()
        own[:, : w // 3] = np.asarray(make_photo(700 + k), dtype=np.int16)[:, : w // 3]
        Image.fromarray(np.clip(own + shade[..., None], 0, 255).astype(np.uint8)).save(folder / f"near_{k}.png")


@pytest.fixture
def no_clip_weights(tmp_path, monkeypatch):
    """The hard config is unavailable (no CLIP weights offline), as on a machine without them."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty_hf_home"))


@pytest.mark.slow
def test_a_config_that_yields_no_item_is_skipped_and_the_export_is_whole(tmp_path, no_clip_weights, capsys):
    import json

    from jigsaw_puzzles.cli import main
    from jigsaw_puzzles.publishing.export import build as export

    folder = tmp_path / "photos"
    twin_tiles(folder)
    write_photos(folder, 2)
    assert len(curate(folder).accepted) == 4  # enough sources, yet no item can be made
    out, cache = tmp_path / "out", str(tmp_path / "cache")
    export(out, source=str(folder), configs=["order_generation"], cache_dir=cache)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ConfigUnavailable, match="no source image yields an item"):  # asked for by name
        export(out, source=str(folder), configs=["missing_piece_selection_easy", "order_generation"], cache_dir=cache)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # untouched
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]  # no staging left behind
    report = export(out, source=str(folder), cache_dir=cache)  # every config: the others are built
    assert "no source image yields an item" in report["skipped_configs"]["missing_piece_selection_easy"]
    assert "order_restoration" in report["configs"] and not (out / "missing_piece_selection_easy").exists()
    skips = report["configs"]["piece_localization_easy"]["task_skips"]
    assert report["configs"]["piece_localization_easy"]["test"] + len(skips) == 4
    assert json.loads((out / "curation_report.json").read_text())["skipped_configs"] == report["skipped_configs"]
    # eval runs the other configs too
    capsys.readouterr()
    rc = main(["eval", "--model", "random", "--source", str(folder), "--out", str(tmp_path / "run"), "--no-progress",
               "--split", "test", "--cache-dir", cache])
    assert rc == 0, capsys.readouterr().err[-2000:]
    line = next(ln for ln in capsys.readouterr().err.splitlines() if "skipping missing_piece_selection_easy" in ln)
    assert "skipping missing_piece_selection_easy: no source image yields an item" in line
    assert len(line) < 450 and "results.json" in line  # one line, its first sentence; the details stay in results.json (#21.10)


@pytest.mark.slow
def test_every_dropped_item_is_a_recorded_skip_and_the_plan_follows_the_skips(tmp_path):
    """Five near-identical photos: some Missing Piece items find no three distinct distractors. Each is a skip
    with its reason; the letters of the items that are made stay balanced; Lite is never an error."""
    folder = tmp_path / "photos"
    near_identical(folder, 5)
    accepted = {s.source_id for s in curate(folder).accepted}
    assert len(accepted) == 5
    dropped = 0
    for seed in range(12):
        builder = make_builder("missing_piece_selection_easy", folder, seed, str(tmp_path / "cache"), **BALANCED)
        builder.download_and_prepare()
        test, lite = builder.as_dataset("test"), builder.as_dataset("lite")  # an empty Lite split is no error
        skips = builder.report["task_skips"]
        assert all(s["reason"] and s["path"].startswith("near_") for s in skips)
        assert set(test["source_id"]) | {s["source_id"] for s in skips} == accepted
        assert not set(test["source_id"]) & {s["source_id"] for s in skips}
        assert set(lite["source_id"]) <= set(test["source_id"])
        counts = [test["answer"].count(letter) for letter in "ABCD"]
        assert max(counts) - min(counts) <= 1, (seed, counts)  # the plan is made after the skips
        stable = make_builder("missing_piece_selection_easy", folder, seed, str(tmp_path / "cache"))
        assert stable.plan()["task_skips"] == skips  # the default plan skips the same sources, with reasons
        dropped += len(skips)
    assert dropped  # the case is exercised


# ----------------------------------------------------------------------------- item 9: pixels follow the bytes

def _rows_match_the_files(dataset, folder: Path) -> None:
    """Every row's source id is the hash of a file's current bytes, and its pieces are that file's pixels."""
    from jigsaw_puzzles.geometry import as_array, split
    from jigsaw_puzzles.generation.sources import content_id

    now = {content_id(p.read_bytes()): p for p in folder.iterdir()}
    for row in dataset:
        assert row["source_id"] in now, "a row carries the id of bytes that are no longer in the folder"
        cells = split(read_source(now[row["source_id"]])[1], 2, 2)
        order = json.loads(row["metadata"])["order"]
        for region, shown in enumerate(order):
            assert (as_array(row["images"][shown - 1].convert("RGB")) == as_array(cells[region])).all()


def test_a_photo_overwritten_with_its_size_and_mtime_kept_is_never_stale(tmp_path):
    """``cp -p`` / ``rsync -t`` keep the size (here: same-size uncompressed PNGs) and the modification time."""
    folder = tmp_path / "photos"
    folder.mkdir()
    for k in range(3):
        make_photo(k).save(folder / f"photo_{k}.png", compress_level=0)
    first = load_dataset("order_generation", source=folder, cache_dir=str(tmp_path / "a"))
    _rows_match_the_files(first, folder)
    target = folder / "photo_0.png"
    st = os.stat(target)
    make_photo(99).save(target, compress_level=0)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (os.stat(target).st_size, os.stat(target).st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    for cache in ("b", "a"):  # a fresh cache, and the same cache as before
        _rows_match_the_files(load_dataset("order_generation", source=folder, cache_dir=str(tmp_path / cache)),
                              folder)


def test_loading_a_source_by_id_refuses_other_bytes(tmp_path):
    from jigsaw_puzzles.generation.sources import SourceChanged

    path = tmp_path / "photo.png"
    make_photo(1).save(path)
    source_id, image = read_source(path)
    assert load_normalised(str(path), source_id=source_id).tobytes() == image.tobytes()
    make_photo(2).save(path)
    with pytest.raises(SourceChanged, match="changed during the build"):
        load_normalised(str(path), source_id=source_id)
    assert isinstance(SourceChanged("x"), UserError)


# ----------------------------------------------------------------------------- #20.1, #20.2, #20.18: the --out folder

def _cli(argv: list[str], capsys) -> tuple[int, str]:
    """``jigsaw-puzzles ARGV``: the exit code and the stderr lines that are not progress bars."""
    from jigsaw_puzzles.cli import main

    capsys.readouterr()
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, [ln for ln in err.splitlines() if ln.startswith("jigsaw-puzzles: ")]


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _staging(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture(scope="module")
def three_photos(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("three") / "photos"
    write_photos(folder, 3)
    return folder


def _build(out, source, cache, capsys, *more) -> tuple[int, list[str]]:
    return _cli(["build", "--out", out, "--source", source, "--configs", "order_generation", "--cache-dir", cache,
                 *more], capsys)


def test_build_replaces_only_an_earlier_export_that_holds_nothing_else(tmp_path, three_photos, capsys):
    cache = tmp_path / "cache"
    mine = tmp_path / "mine"  # a user's folder: photos, a repository, notes
    (mine / "photos").mkdir(parents=True)
    (mine / "photos" / "a.jpg").write_bytes(b"holiday")
    (mine / ".git").mkdir()
    (mine / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (mine / "notes.txt").write_text("mine")
    before = _tree(mine)
    rc, err = _build(mine, three_photos, cache, capsys)
    assert rc == 2 and len(err) == 1 and ".git/" in err[0] and "notes.txt" in err[0] and "photos/" in err[0], err
    assert _tree(mine) == before and not _staging(mine)  # nothing deleted, nothing written

    out = tmp_path / "export"
    assert _build(out, three_photos, cache, capsys)[0] == 0
    export = _tree(out)
    for extra in ("notes.txt", "order_generation/notes.txt", "assets/holiday.jpg"):  # an export plus a user file
        (out / extra).write_text("mine")
        rc, err = _build(out, three_photos, cache, capsys)
        assert rc == 2 and len(err) == 1 and extra in err[0], err
        assert (out / extra).read_text() == "mine"
        (out / extra).unlink()
        assert _tree(out) == export
    rc, _ = _build(out, three_photos, cache, capsys, "--seed", "1")  # an earlier export alone: replaced
    assert rc == 0 and _tree(out) != export and json.loads((out / "curation_report.json").read_text())["seed"] == 1


def test_build_out_inside_the_source_is_refused(tmp_path, capsys):
    source = tmp_path / "photos"
    write_photos(source, 3)
    for out in (source / "export", source):
        rc, err = _build(out, source, tmp_path / "cache", capsys)
        assert rc == 2 and len(err) == 1 and "source folder" in err[0], err
    assert not (source / "export").exists() and sorted(p.name for p in source.iterdir()) == [
        "photo_000.jpg", "photo_001.jpg", "photo_002.jpg"]


def test_a_killed_builds_staging_is_removed_by_the_next_build(tmp_path, three_photos, capsys):
    out = tmp_path / "export"
    dead, alive = tmp_path / f".export.partial-{_dead_pid()}", tmp_path / f".export.partial-{os.getppid()}"
    for staging in (dead, alive):
        (staging / "order_generation").mkdir(parents=True)
        (staging / "order_generation" / "test-00000-of-00001.parquet").write_bytes(b"half")
    assert _build(out, three_photos, tmp_path / "cache", capsys)[0] == 0
    assert not dead.exists() and alive.exists()  # another build may still be writing that one
    assert _staging(out) == [alive.name]


def test_a_build_killed_during_the_swap_gets_its_earlier_export_back(tmp_path, three_photos, capsys):
    from jigsaw_puzzles.publishing.outdir import clean_stale_staging

    out = tmp_path / "export"
    assert _build(out, three_photos, tmp_path / "cache", capsys)[0] == 0
    export = _tree(out)
    moved = tmp_path / f".export.previous-{_dead_pid()}"
    os.replace(out, moved)  # killed between moving the earlier export aside and renaming the new one in
    assert clean_stale_staging(out) and _tree(out) == export and not moved.exists()


def test_a_full_disk_is_one_line_and_the_earlier_export_stays(tmp_path, three_photos, capsys, monkeypatch):
    import errno

    import jigsaw_puzzles.publishing.export as export_module

    out = tmp_path / "export"
    assert _build(out, three_photos, tmp_path / "cache", capsys)[0] == 0
    export = _tree(out)

    def full(dataset, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(export_module, "write_parquet", full)
    rc, err = _build(out, three_photos, tmp_path / "cache", capsys, "--seed", "3")
    assert rc == 2 and len(err) == 1 and "No space left on device" in err[0] and "unchanged" in err[0], err
    assert _tree(out) == export and not _staging(out)


def test_an_export_with_a_corrupt_curation_report_is_one_line(tmp_path, three_photos, capsys):
    out = tmp_path / "export"
    assert _build(out, three_photos, tmp_path / "cache", capsys)[0] == 0
    for corrupt in ("{not json", "[]", '{"configs": {}}'):
        (out / "curation_report.json").write_text(corrupt)
        export = _tree(out)
        rc, err = _build(out, three_photos, tmp_path / "cache", capsys)
        assert rc == 2 and len(err) == 1 and "curation_report.json is corrupt" in err[0], err
        assert _tree(out) == export and not _staging(out)


@pytest.mark.parametrize("command", ["build", "eval", "report", "analyze", "export", "lmms-eval"])
def test_an_out_that_is_a_file_is_one_line_and_left_alone(command, tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    argv = {"build": ["build"], "eval": ["eval", "--model", "random"], "report": ["report", tmp_path / "run"],
            "analyze": ["analyze", tmp_path / "run"], "export": ["export", "vlmevalkit"],
            "lmms-eval": ["lmms-eval", "--dataset", tmp_path]}[command]
    rc, err = _cli([*argv, "--out", target], capsys)
    assert rc == 2 and len(err) == 1 and "is a file" in err[0], err
    assert target.read_text() == "mine"


def test_show_out_in_a_missing_folder_or_a_folder_is_one_line(tmp_path, capsys):
    rc, err = _cli(["show", "order_generation", "--out", tmp_path / "missing" / "item.png"], capsys)
    assert rc == 2 and len(err) == 1 and "does not exist" in err[0], err
    assert not (tmp_path / "missing").exists()
    rc, err = _cli(["show", "order_generation", "--out", tmp_path], capsys)
    assert rc == 2 and len(err) == 1 and "is a folder" in err[0], err


NOBODY_OUT = r"""
import contextlib, io, json, os, sys
import statistics, tqdm.auto  # imported before dropping privileges: the interpreter's files may be root's
import jigsaw_puzzles.publishing.export
from jigsaw_puzzles.cli import build_parser, main
build_parser()
os.setgid(65534); os.setuid(65534)
locked, photos = sys.argv[1], sys.argv[2]
results = {}
for name, argv in {"build": ["build", "--out", f"{locked}/export", "--source", photos],
                   "eval": ["eval", "--model", "random", "--out", f"{locked}/run"],
                   "report": ["report", f"{locked}/run", "--out", f"{locked}/report"],
                   "analyze": ["analyze", f"{locked}/run", "--out", f"{locked}/analysis"],
                   "show": ["show", "order_generation", "--out", f"{locked}/item.png"]}.items():
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(argv)
    results[name] = [rc, err.getvalue()]
print(json.dumps(results))
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to drop privileges")
def test_an_unwritable_out_is_one_line_before_any_work(tmp_path):
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="jp-nobody-"))  # pytest's own tmp folders are root-only
    try:
        os.chmod(base, 0o755)
        photos, locked = base / "photos", base / "locked"
        write_photos(photos, 3)
        locked.mkdir(mode=0o755)  # root's: nobody may not write in it
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HOME": str(base / "hf")}
        proc = subprocess.run([sys.executable, "-c", NOBODY_OUT, str(locked), str(photos)], capture_output=True,
                              text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        for command, (rc, err) in json.loads(proc.stdout.splitlines()[-1]).items():
            lines = [ln for ln in err.splitlines() if ln.strip()]
            assert rc == 2 and len(lines) == 1 and "cannot write in" in lines[0], (command, err)
        assert list(locked.iterdir()) == []
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)


def _resaved_copy_sorting_first(original: Path, folder: Path) -> tuple[Path, str]:
    """A re-encoded copy of ``original`` (same picture, other bytes) whose content id sorts before the
    original's: the copy the smallest-id rule would keep."""
    from jigsaw_puzzles.generation.sources import content_id

    original_id = content_id(original.read_bytes())
    image = Image.open(original).convert("RGB")
    for quality in range(95, 40, -1):
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=quality)
        if content_id(buffer.getvalue()) < original_id:
            copy = folder / "zz_resaved.jpg"  # its name sorts last, its id first
            copy.write_bytes(buffer.getvalue())
            return copy, content_id(buffer.getvalue())
    raise AssertionError("no re-encoding sorts first")


def test_a_resaved_copy_added_to_a_growing_folder_never_evicts_the_original(tmp_path, capsys):
    import datasets

    source, out, cache = tmp_path / "photos", tmp_path / "export", tmp_path / "cache"
    write_photos(source, 4)
    original = source / "photo_001.jpg"
    assert _build(out, source, cache, capsys)[0] == 0
    before = datasets.load_dataset(str(out), "order_generation", split="test").to_list()
    original_id = [r for r in json.loads((out / "curation_report.json").read_text())["curation"]["records"]
                   if r["path"] == "photo_001.jpg"][0]["source_id"]
    copy, copy_id = _resaved_copy_sorting_first(original, source)
    assert copy_id < original_id
    assert _build(out, source, cache, capsys)[0] == 0
    after = datasets.load_dataset(str(out), "order_generation", split="test").to_list()
    assert after == before  # the original's items (and every other) are unchanged, the copy adds none
    records = {r["path"]: r for r in json.loads((out / "curation_report.json").read_text())["curation"]["records"]}
    assert records["photo_001.jpg"]["status"] == "accepted"
    assert records[copy.name]["status"] == "rejected"
    assert "near duplicate of photo_001.jpg" in records[copy.name]["reason"]
    assert "already in the benchmark" in records[copy.name]["reason"]
    # without an earlier export the rule is the ids' (the copy wins): the record is what keeps the original
    assert {s.source_id for s in curate(source).accepted} >= {copy_id}
