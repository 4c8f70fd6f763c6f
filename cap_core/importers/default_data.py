"""Build the embedded default data under ``data/`` from the public data folder.

``data/default/`` holds items, judgments and declarations of LLMBar (with its processed
MT-Bench, FairEval and LLMEval² sets) and JudgeBench (GPT-4o and Claude pair sets, plus
the rubric-judge fork), as written by :func:`cap_core.dataset.save_dataset`. Only ids,
categories, gold labels, verdicts, scores and lengths are stored, never benchmark text.
``data/published/`` receives copies of the transcribed CAP tables.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cap_core.dataset import Dataset, concat_datasets, save_dataset
from cap_core.errors import CAPInputError
from cap_core.importers import import_judgebench, import_llmbar

__all__ = ["build_default", "load_default_sources", "PUBLISHED_FILES"]

#: Published CSVs copied into ``data/published``.
PUBLISHED_FILES: tuple[str, ...] = ("cap_profiles.csv", "cap_coverage.csv")


def _build_default_iv(shared, out) -> tuple[Path, Path]:
    for label, p in (("shared", shared), ("out", out)):
        if not isinstance(p, (str, Path)):
            raise CAPInputError(f"{label} must be a folder path", got=type(p).__name__, fix="pass a pathlib.Path")
    shared, out = Path(shared), Path(out)
    needed = [shared / "data" / "llmbar", shared / "data" / "judgebench"] + [
        shared / "published" / f for f in PUBLISHED_FILES
    ]
    for p in needed:
        if not p.exists():
            raise CAPInputError(
                "shared data folder is incomplete",
                file=str(p),
                expected="the shared folder with data/llmbar, data/judgebench and published/",
                fix="pass --shared pointing at the folder that holds data/ and published/ (../shared in CI)",
            )
    return shared, out


def load_default_sources(shared: Path | str) -> Dataset:
    """Import every benchmark that goes into the default data (no writing).

    Parameters
    ----------
    shared : pathlib.Path or str
        Folder holding ``data/llmbar``, ``data/judgebench`` and, optionally,
        ``data/judgebench_fork_stellalisy``.

    Returns
    -------
    Dataset
        LLMBar (strategies Vanilla_NoRules, CoT, Rating) and JudgeBench (arena_hard,
        reward-model and rubric judges) combined; notices of both importers kept.

    Raises
    ------
    CAPInputError
        From the importers.
    """
    data = Path(shared) / "data"
    fork = data / "judgebench_fork_stellalisy"
    return concat_datasets(
        [
            import_llmbar(data / "llmbar"),
            import_judgebench(data / "judgebench", fork if fork.is_dir() else None),
        ]
    )


def build_default(shared: Path | str, out: Path | str) -> None:
    """Write ``<out>/default/*.parquet`` and copy the published CSVs to ``<out>/published``.

    Parameters
    ----------
    shared : pathlib.Path or str
        The shared folder (``../shared`` relative to the repository in CI).
    out : pathlib.Path or str
        The repository's ``data`` folder (created if absent).

    Raises
    ------
    CAPInputError
        The shared folder lacks a needed part, or an importer rejects a file.
    """
    shared, out = _build_default_iv(shared, out)
    ds = load_default_sources(shared)
    save_dataset(ds, out / "default")
    (out / "default" / "notices.txt").write_text("\n".join(ds.notices) + "\n", encoding="utf-8")
    pub = out / "published"
    pub.mkdir(parents=True, exist_ok=True)
    for name in PUBLISHED_FILES:
        shutil.copyfile(shared / "published" / name, pub / name)
