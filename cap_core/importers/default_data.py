"""Build the embedded ``data/`` folder from the public data folder (the one place that reads it).

The public data folder (``../shared`` beside a developer's checkout: ``data/`` with the
raw public files, ``published/`` with the papers' tables as CSV) does not exist on a
user's machine. This build turns it into derived figures the product ships; nothing
else in the product reads it. Written under ``out`` (the repository's ``data``):

``default/``    items, judgments and declarations of LLMBar (with its processed MT-Bench,
                FairEval and LLMEval² sets) and JudgeBench (GPT-4o and Claude pair sets, plus
                the rubric-judge fork), as written by :func:`cap_core.dataset.save_dataset`;
``pandalm/``    the PandaLM test set (:mod:`cap_core.importers.pandalm`) and its three-level
                ``graded.parquet``;
``published/``  byte copies of the transcribed tables (:data:`PUBLISHED_FILES`);
``validity/real_gradings.parquet``  the public gradings on the (S, R) plane
                (:func:`cap_core.importers.real_gradings.build_real_gradings`);
``audit/``      the surface audit of the public label sets (:mod:`cap_core.audit.shipped`):
                the page's quick default (:data:`~cap_core.importers.label_sets.QUICK` at
                20 permutations) and the full audit (every public set at 100 permutations).

Only ids, categories, gold labels, verdicts, scores, lengths and audit figures are
stored, never benchmark text. The build is deterministic (seed 0).
"""

from __future__ import annotations

from pathlib import Path

from cap_core import config
from cap_core.dataset import Dataset, concat_datasets, save_dataset
from cap_core.errors import CAPInputError
from cap_core.importers.judgebench import import_judgebench
from cap_core.importers.label_sets import (
    FULL_PERMUTATIONS,
    PUBLIC_SETS,
    QUICK,
    QUICK_PERMUTATIONS,
)
from cap_core.importers.llmbar import import_llmbar

__all__ = ["build_default", "build_audit_figures", "load_default_sources", "DEFAULT_PUBLIC_DATA", "PUBLISHED_FILES",
           "AUDIT_RUNS"]

#: Where the build looks for the public data folder when not told: ``../shared`` beside the repository.
DEFAULT_PUBLIC_DATA = config.REPO_ROOT.parent / "shared"

#: Published CSVs copied into ``<out>/published``: name written -> name under ``<shared>/published``.
PUBLISHED_FILES: dict[str, str] = {
    "cap_profiles.csv": "cap_profiles.csv",
    "cap_coverage.csv": "cap_coverage.csv",
    "cap_stress.csv": "cap_stress.csv",
    "cap_spearman_c7.csv": "cap_spearman_c7.csv",
    "cap_family_l1.csv": "cap_family_l1.csv",
    "validity_judges.csv": "validity_judges.csv",
    "validity_interventions.csv": "validity_interventions.csv",
    "validity_interventions_human.csv": "validity_interventions_human.csv",
    "validity_labelset_audit.csv": "labelset_audit.csv",
}


#: The audits the build ships: (label sets, permutations) — the Label audit page's quick
#: default and its full audit, both at seed 0 with 5 group folds.
AUDIT_RUNS: tuple[tuple[tuple[str, ...], int], ...] = ((QUICK, QUICK_PERMUTATIONS), (tuple(PUBLIC_SETS), FULL_PERMUTATIONS))


def _build_default_iv(shared, out) -> tuple[Path, Path]:
    for label, p in (("shared", shared), ("out", out)):
        if not isinstance(p, (str, Path)):
            raise CAPInputError(f"{label} must be a folder path", argument=label, got=type(p).__name__,
                                fix="pass a pathlib.Path")
    shared, out = Path(shared), Path(out)
    needed = [shared / "data" / "llmbar", shared / "data" / "judgebench", shared / "data" / "pandalm"] + [
        shared / "published" / f for f in PUBLISHED_FILES.values()
    ]
    for p in needed:
        if not p.exists():
            raise CAPInputError(
                "the public data folder is incomplete",
                file=str(p),
                expected="the public data folder with data/llmbar, data/judgebench, data/pandalm and published/",
                fix="pass --shared pointing at the folder that holds data/ and published/ (../shared beside the "
                "repository)",
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


def build_audit_figures(shared: Path | str, out: Path | str,
                        runs: tuple[tuple[tuple[str, ...], int], ...] = AUDIT_RUNS, *, seed: int = 0,
                        n_splits: int = 5) -> Path:
    """Audit the public label sets from their texts and write the figures to ``out`` (``data/audit``).

    Parameters
    ----------
    shared : path
        The public data folder (its ``data/`` holds the label-set files).
    out : path
        Folder to write (:mod:`cap_core.audit.shipped` layout).
    runs : tuple of (label sets, permutations)
        Default :data:`AUDIT_RUNS` (a couple of minutes on two cores).
    seed, n_splits : int
        Audit settings (the page's: 0 and 5).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    CAPInputError
        From the label-set readers or the audit.
    """
    from cap_core.audit.shipped import write_shipped_audit
    from cap_core.audit.surface import audit_label_sets
    from cap_core.importers.label_sets import read_public_label_set

    sets = {}
    for names, _ in runs:
        for name in names:
            if name not in sets:
                sets[name] = read_public_label_set(name, Path(shared) / "data")
    results = [(audit_label_sets([sets[n] for n in names], n_permutations=n, seed=seed, n_splits=n_splits), n)
               for names, n in runs]
    return write_shipped_audit(results, {n: ls.source for n, ls in sets.items()}, out, seed=seed, n_splits=n_splits)


def build_default(shared: Path | str | None = None, out: Path | str | None = None, *, audit: bool = True) -> None:
    """Write ``default/``, ``pandalm/``, ``published/``, ``validity/real_gradings.parquet`` and ``audit/`` under ``out``.

    Parameters
    ----------
    shared : pathlib.Path or str, optional
        The public data folder; default :data:`DEFAULT_PUBLIC_DATA` (``../shared`` beside
        the repository).
    out : pathlib.Path or str, optional
        The data folder to write (created if absent); default :func:`cap_core.config.data_dir`.
    audit : bool, default True
        Also run the label-set audits of :data:`AUDIT_RUNS` (the slow part, minutes).

    Raises
    ------
    CAPInputError
        The public data folder lacks a needed part, or an importer rejects a file.
    """
    from cap_core.importers.pandalm import import_pandalm, import_pandalm_graded
    from cap_core.importers.real_gradings import build_real_gradings
    from cap_core.outputs import write_file

    shared, out = _build_default_iv(DEFAULT_PUBLIC_DATA if shared is None else shared,
                                    config.data_dir() if out is None else out)
    ds = load_default_sources(shared)
    save_dataset(ds, out / "default")
    write_file(out / "default" / "notices.txt", "\n".join(ds.notices) + "\n")
    save_dataset(import_pandalm(shared / "data" / "pandalm"), out / "pandalm")
    write_file(out / "pandalm" / "graded.parquet", import_pandalm_graded(shared / "data" / "pandalm").write_parquet)
    pub = out / "published"
    for name, source in PUBLISHED_FILES.items():
        write_file(pub / name, (shared / "published" / source).read_bytes())
    build_real_gradings(shared, out / "validity" / "real_gradings.parquet")
    if audit:
        build_audit_figures(shared, out / "audit")
