"""A rebuilt published table reaches the page without a restart: its cache is keyed by the file's stamp."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl

REPO = Path(__file__).resolve().parents[2]


def test_an_edited_published_table7_is_shown(tmp_path, monkeypatch):
    import ui.cache.label_audit as la

    table = tmp_path / "validity_labelset_audit.csv"
    shutil.copy(REPO / "data" / "published" / "validity_labelset_audit.csv", table)
    monkeypatch.setattr(la, "PUBLISHED_TABLE7", table)
    first = la.published_table7()
    col = next(c for c, t in first.schema.items() if t == pl.Float64)
    edited = first.with_columns(pl.lit(11.1).alias(col))
    edited.write_csv(table)
    os.utime(table, ns=(table.stat().st_atime_ns, table.stat().st_mtime_ns + 10**9))  # a later modification
    assert la.published_table7()[col].to_list() == [11.1] * edited.height
    assert first[col].to_list() != [11.1] * first.height


def test_an_edited_published_profile_reaches_the_profiles(tmp_path, monkeypatch):
    import cap_core.profile.published as pub

    folder = tmp_path / "published"
    shutil.copytree(REPO / "data" / "published", folder)
    from cap_core import config
    from ui.cache import loaders

    monkeypatch.setattr(pub, "PUBLISHED_DIR", folder)
    monkeypatch.setattr(config, "published_dir", lambda: folder)  # not CAP_DATA_DIR: modules read it at import

    before = loaders.published_profiles()
    f = folder / "cap_profiles.csv"
    text = f.read_text()
    assert "GPT-4o,C1,raw,40.5," in text  # CAP Table 3, judgerEva hard-empirical, GPT-4o C1
    f.write_text(text.replace("GPT-4o,C1,raw,40.5,", "GPT-4o,C1,raw,99.5,", 1))
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
    after = loaders.published_profiles()

    def cell(frame):
        return frame.filter((pl.col("benchmark") == "judgereva") & (pl.col("subset") == "hard_empirical")
                            & (pl.col("judge") == "GPT-4o") & (pl.col("condition") == "C1"))["value"].to_list()

    assert 40.5 in cell(before) and 99.5 in cell(after) and 40.5 not in cell(after)
