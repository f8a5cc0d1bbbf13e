"""Bad files and folders never abort a build nor vanish silently (Trust issue, building side)."""

from __future__ import annotations

import io
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
from jigsaw_puzzles import load_dataset
from jigsaw_puzzles.scoring import score
from jigsaw_puzzles.sources import curate, load_normalised, read_source


def build(folder, tmp_path, config="order_generation"):
    return load_dataset(config, source=folder, cache_dir=str(tmp_path / "cache"))


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
from jigsaw_puzzles.sources import curate
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
