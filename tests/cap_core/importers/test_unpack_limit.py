"""Every decompression the readers do stops at one limit, counted while unpacking (issue 19, finding 4).

A 1.4 MB ``.eval`` whose ``header.json`` unpacks to 1.5 GB, or an ``annotations.json.gz`` of the same
kind, pushed ``import`` (and the dashboard's upload, which takes the same path) to 3 GB of memory;
only an uploaded ``.zip`` had a cap, and that one trusted the sizes its header declared. The bombs
here are made in the test: about 260 kB of deflated spaces that unpack to one MiB more than
:data:`cap_core.io.MAX_UNPACKED_BYTES` (the limit itself is the product's; nothing is patched).
"""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cap_core.errors import CAPInputError
from cap_core.importers.uploads import read_uploads, write_uploads
from cap_core.io import MAX_UNPACKED_BYTES, read_unpacked

REPO = Path(__file__).resolve().parents[3]
MIB = 1 << 20
#: What every refusal says: how much, and which limit.
LIMIT_TEXT = f"unpacks to more than {MAX_UNPACKED_BYTES // MIB} MiB"


def _spaces(write, head: bytes, tail: bytes) -> None:
    """``head``, then one MiB more blank space than the limit allows, then ``tail``: valid JSON, tiny deflated."""
    write(head)
    block = b" " * MIB
    for _ in range(MAX_UNPACKED_BYTES // MIB + 1):
        write(block)
    write(tail)


@pytest.fixture(scope="module")
def bombs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bombs")
    ann = root / "ae" / "results" / "m" / "ann" / "annotations.json.gz"
    ann.parent.mkdir(parents=True)
    with gzip.open(ann, "wb") as fh:
        _spaces(fh.write, b"[", b"]")
    log = root / "bomb.eval"
    with zipfile.ZipFile(log, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("header.json", "w", force_zip64=True) as fh:
            _spaces(fh.write, b'{"eval": {"task": "t", "model": "m"}, "pad": "', b'"}')
        z.writestr("samples/1_epoch_1.json", "{}")
    nested = root / "logs.zip"  # the .eval inside an uploaded .zip
    with zipfile.ZipFile(nested, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.write(log, "logs/bomb.eval")
    big = root / "big.zip"  # an uploaded .zip whose member unpacks past the limit
    with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("data/judgments.jsonl", "w", force_zip64=True) as fh:
            _spaces(fh.write, b"", b"\n")
    for f in (ann, log, nested, big):
        assert f.stat().st_size < 2 * MIB  # small files...
    return {"gz": ann, "eval": log, "nested": nested, "zip": big}


def _cap(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cap_core", *args], capture_output=True, text=True, cwd=REPO)


def test_gzip_annotations_bomb_is_refused_with_the_file_and_the_limit(bombs, tmp_path):
    got = _cap("import", "alpacaeval", str(bombs["gz"].parents[3]), "--out", str(tmp_path / "ds"))
    assert got.returncode == 2, got.stderr
    line = got.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert LIMIT_TEXT in line and str(bombs["gz"]) in line and "MAX_UNPACKED_BYTES" in line
    assert not (tmp_path / "ds").exists()


def test_eval_log_bomb_is_refused_naming_its_member(bombs, tmp_path):
    got = _cap("import", "inspect", str(bombs["eval"]), "--out", str(tmp_path / "ds"))
    assert got.returncode == 2, got.stderr
    line = got.stderr.strip()
    assert LIMIT_TEXT in line and str(bombs["eval"]) in line and "'header.json'" in line


def test_uploaded_zip_member_is_counted_while_unpacking(bombs, tmp_path):
    """The member's declared size is right here; the count stops at the limit, not the 2 GB total."""
    with pytest.raises(CAPInputError) as err:
        write_uploads([("big.zip", bombs["zip"].read_bytes())], root=tmp_path)
    assert LIMIT_TEXT in str(err.value) and err.value.file == "big.zip"
    assert err.value.column == "data/judgments.jsonl"
    assert [p.name for p in tmp_path.iterdir()] == []  # the partial folder is removed


def test_a_bomb_inside_an_uploaded_zip_is_refused_by_the_reader(bombs, tmp_path):
    """The dashboard's upload path: a .zip holding the .eval unpacks (it is small), then the log's own
    member is held to the limit."""
    with pytest.raises(CAPInputError) as err:
        read_uploads("inspect", [("logs.zip", bombs["nested"].read_bytes())], root=tmp_path)
    assert LIMIT_TEXT in str(err.value) and err.value.file.endswith("bomb.eval")


def test_the_count_does_not_trust_what_the_stream_claims():
    """``read_unpacked`` counts the bytes it gets: one byte over the limit is refused, the limit itself read."""
    assert read_unpacked(io.BytesIO(b"x" * 100), limit=100) == b"x" * 100
    with pytest.raises(CAPInputError, match="unpacks to more than") as err:
        read_unpacked(io.BytesIO(b"x" * 101), file="f.gz", member="m", limit=100)
    assert err.value.file == "f.gz" and err.value.column == "m"
