"""Download a public benchmark from the Hugging Face Hub into a local folder an importer reads.

``python -m cap_core fetch NAME --out DIR`` (:mod:`cap_core.cli.fetch`) calls :func:`fetch`:
``huggingface_hub.snapshot_download`` (``repo_type="dataset"``) brings the files named in the
:data:`REGISTRY` entry into the library's cache (``HF_HOME`` / ``HF_HUB_CACHE``, or
``cache_dir``), they are copied into ``DIR``, and the entry's *arrange* step lays them out
the way the importer named in its ``reads_with`` expects. The library's own offline rules
apply: with ``HF_HUB_OFFLINE=1`` (or ``offline=True``) only a cached copy is used, and no
cached copy is a :class:`~cap_core.errors.CAPInputError` (the CLI: one line, exit 2).

Registry (``REGISTRY``): each :class:`HubSource` names the Hub dataset, the files taken
(``allow``), what reads the folder afterwards, and a note. Where a benchmark holds no data
files on the Hub (LLMBar: the Hub repository ``princeton-nlp/LLMBar`` holds only a loading
script that downloads from the GitHub repository), the entry has no ``repo_id`` and
:func:`fetch` says where to get it instead.

Nothing here runs at import time or reads a developer's public data folder; huggingface_hub is imported
lazily.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.io import parse_json
from cap_core.outputs import make_dirs, remove_file, write_file

__all__ = ["HubSource", "REGISTRY", "fetch", "names", "chosen_second"]


@dataclass(frozen=True)
class HubSource:
    """One fetchable benchmark.

    Attributes
    ----------
    name : str
        The ``fetch`` name.
    repo_id : str or None
        Hub dataset id (``owner/name``); None when the data is not on the Hub.
    allow : tuple of str
        ``allow_patterns`` of the download (paths in the repository).
    reads_with : str
        What reads the fetched folder (a CLI verb or a page).
    note : str
        Provenance, licence or where to get it when ``repo_id`` is None.
    arrange : callable or None
        ``arrange(out_dir) -> list[str]`` lays the downloaded files out for the reader and
        returns notices.
    """

    name: str
    repo_id: str | None
    allow: tuple[str, ...] = ()
    reads_with: str = ""
    note: str = ""
    arrange: Callable[[Path], list[str]] | None = field(default=None, compare=False)


def _judgebench_layout(out: Path) -> list[str]:
    """Hub files ``data/<split>-00000-of-00001.jsonl`` -> the repository's names
    ``data/dataset=judgebench,response_model=<M>.jsonl`` (M read from the first record),
    which :func:`cap_core.importers.judgebench.read_pair_file` and the judging runs read."""
    notes = []
    for f in sorted((out / "data").glob("*-of-*.jsonl")):
        first = next((line for line in f.read_text(encoding="utf-8").splitlines() if line.strip()), "")
        try:
            model = parse_json(first, file=str(f), row=1).get("response_model")
        except (CAPInputError, AttributeError):
            model = None
        if not model:
            raise CAPInputError("JudgeBench file from the Hub without response_model", file=str(f), row=1,
                                column="response_model", expected="JudgeBench pair records",
                                fix="fetch again (--force) or download the JudgeBench repository by hand")
        target = f.with_name(f"dataset=judgebench,response_model={model}.jsonl")
        write_file(target, f.read_bytes())
        remove_file(f)
        notes.append(f"JudgeBench: {f.name} -> {target.name}")
    return notes


def chosen_second(benchmark: str, item_id: str) -> bool:
    """Whether the chosen (better) response of a chosen / rejected pair is placed B: a fixed half of
    the pairs, by a hash of ``"<benchmark>:<item_id>"``, so gold is balanced and every reader of
    such pairs (the fetched items, :mod:`cap_core.importers.rewardbench`) places them alike."""
    key = f"{benchmark}:{item_id}"
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:8], 16) % 2 == 1


def _preference_items(benchmark: str, *, prompt: str, chosen: str, rejected: str, subset: str | None,
                      ident: str | None) -> Callable[[Path], list[str]]:
    """Arrange step for prompt / chosen / rejected tables: an ``items.parquet`` with texts
    (``question``, ``response_a``, ``response_b``, ``gold``), the chosen response placed A or B
    by a hash of the pair id so that gold is balanced; read by the Live run page, ``judge``
    and the Labelling page."""

    def arrange(out: Path) -> list[str]:
        files = sorted(p for p in out.rglob("*.parquet") if p.name != "items.parquet")
        if not files:
            raise CAPInputError(f"no Parquet files fetched for {benchmark}", file=str(out),
                                expected="the Hub dataset's data/*.parquet", fix="fetch again with --force")
        frame = pl.concat([pl.read_parquet(p) for p in files], how="diagonal_relaxed")
        for col in (prompt, chosen, rejected):
            if col not in frame.columns:
                raise CAPInputError(f"{benchmark} table without a required column", file=str(files[0]), column=col,
                                    expected=f"columns {prompt}, {chosen}, {rejected}", got=sorted(frame.columns),
                                    fix="the Hub dataset changed its layout; download it by hand and upload a table")
        ids = (frame[ident].cast(pl.String) if ident and ident in frame.columns
               else pl.Series([str(i) for i in range(1, frame.height + 1)]))
        swap = [chosen_second(benchmark, i) for i in ids]
        ch, rj = frame[chosen].cast(pl.String), frame[rejected].cast(pl.String)
        items = pl.DataFrame({
            "benchmark": benchmark, "item_id": ids,
            "subset": frame[subset].cast(pl.String) if subset and subset in frame.columns else "all",
            "question": frame[prompt].cast(pl.String),
            "response_a": [r if s else c for c, r, s in zip(ch, rj, swap)],
            "response_b": [c if s else r for c, r, s in zip(ch, rj, swap)],
            "gold": ["B" if s else "A" for s in swap],
        })
        write_file(out / "items.parquet", items.write_parquet)
        return [f"{benchmark}: wrote items.parquet ({items.height} pairs with texts; gold A {swap.count(False)}, "
                f"B {swap.count(True)})."]

    return arrange


def _parquet_to_jsonl(out: Path) -> list[str]:
    """Each fetched ``*.parquet`` also as ``*.jsonl`` (the MT-Bench importer reads JSON lines)."""
    notes = []
    for p in sorted(out.rglob("*.parquet")):
        target = p.with_suffix(".jsonl")
        write_file(target, pl.read_parquet(p).write_ndjson)
        remove_file(p)
        notes.append(f"{p.name} -> {target.name}")
    return notes


REGISTRY: dict[str, HubSource] = {s.name: s for s in (
    HubSource("judgebench", "ScalerLab/JudgeBench", ("data/*.jsonl", "README.md"),
              reads_with="python -m cap_core evaluate --benchmark judgebench --source DIR (pairs with texts; "
                         "the paper's judge outputs are only in the GitHub repository ScalerLab/JudgeBench)",
              note="Tan et al. 2024; MIT on the Hub card", arrange=_judgebench_layout),
    HubSource("rewardbench", "allenai/reward-bench", ("data/*.parquet", "README.md"),
              reads_with="the Live run and Labelling pages (items.parquet with texts)",
              note="Lambert et al. 2024; ODC-BY on the Hub card",
              arrange=_preference_items("rewardbench", prompt="prompt", chosen="chosen", rejected="rejected",
                                        subset="subset", ident="id")),
    HubSource("mtbench-human", "lmsys/mt_bench_human_judgments", ("data/*.parquet", "README.md"),
              reads_with="python -m cap_core import --format mtbench DIR --gold-judge 'expert_*'",
              note="Zheng et al. 2023 (human and GPT-4 votes on MT-Bench pairs); CC-BY-4.0 on the Hub card",
              arrange=_parquet_to_jsonl),
    HubSource("llmbar", None, reads_with="python -m cap_core import llmbar DIR/Dataset",
              note="LLMBar keeps no data files on the Hub (the princeton-nlp/LLMBar dataset repository holds only "
                   "a loading script that downloads from GitHub): clone the GitHub repository "
                   "princeton-nlp/LLMBar and pass its Dataset folder"),
)}


def names() -> list[str]:
    """The fetchable names, sorted."""
    return sorted(REGISTRY)


def _offline_env() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _copy_allowed(src: Path, out: Path, allow: tuple[str, ...]) -> int:
    n = 0
    for p in sorted(src.rglob("*")):
        rel = p.relative_to(src).as_posix()
        if not p.is_file() or rel.startswith(".") or (allow and not any(fnmatch.fnmatch(rel, a) for a in allow)):
            continue
        write_file(out / rel, lambda t, p=p: shutil.copyfile(p, t))  # follows the cache's symlinks to its blobs
        n += 1
    return n


def fetch(name: str, out: Path | str, *, revision: str | None = None, cache_dir: Path | str | None = None,
          offline: bool | None = None, force: bool = False) -> tuple[Path, list[str]]:
    """Download benchmark ``name`` into folder ``out``; return ``(out, notices)``.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    out : pathlib.Path or str
        Folder to fill (created; it must be empty or absent unless ``force``).
    revision : str, optional
        A Hub branch, tag or commit (default: the repository's default branch).
    cache_dir : pathlib.Path or str, optional
        The huggingface_hub cache to use (default: the library's, ``HF_HUB_CACHE``).
    offline : bool, optional
        Use only a cached copy (default: ``HF_HUB_OFFLINE`` read now).
    force : bool
        Fill a non-empty ``out`` anyway (files of the same name are overwritten).

    Raises
    ------
    CAPInputError
        Unknown name (argument ``NAME``, nearest name suggested), a benchmark not on the Hub
        (where to get it), a non-empty ``out`` without ``force``, the Hub unreachable with no
        cached copy, a repository not found, nothing matched, or the arrange step's checks.
    """
    from cap_core.schema import did_you_mean

    if name not in REGISTRY:
        raise CAPInputError("unknown benchmark to fetch", argument="NAME", expected="one of " + ", ".join(names()),
                            got=name, fix=did_you_mean(name, names(), "pick a name from the list"))
    src = REGISTRY[name]
    if src.repo_id is None:
        raise CAPInputError(f"{name} cannot be fetched from the Hub", argument="NAME", got=name, fix=src.note)
    out = Path(out).expanduser()
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not force)):
        raise CAPInputError("the output folder is not empty", file=str(out), expected="an empty or new folder",
                            fix="choose a new --out folder, or pass --force to fill this one")
    offline = _offline_env() if offline is None else bool(offline)
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import (
            HfHubHTTPError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
        )
    except ImportError:  # pragma: no cover - huggingface_hub is a dependency
        raise CAPInputError("huggingface_hub is not installed", argument="NAME",
                            fix="pip install -r requirements.txt") from None
    try:
        snap = snapshot_download(src.repo_id, repo_type="dataset", revision=revision, allow_patterns=list(src.allow)
                                 or None, cache_dir=str(cache_dir) if cache_dir else None, local_files_only=offline)
    except LocalEntryNotFoundError:
        how = "offline mode is on (HF_HUB_OFFLINE)" if offline else "the Hub could not be reached"
        raise CAPInputError(f"cannot fetch {name}: {how} and no cached copy of {src.repo_id} was found",
                            argument="NAME", got=name,
                            fix="connect to the internet and run fetch again, or point HF_HOME (or --cache-dir) "
                                "at a cache holding the dataset") from None
    except RepositoryNotFoundError:
        raise CAPInputError(f"the Hub has no dataset {src.repo_id}", argument="NAME", got=name,
                            fix="the dataset may have moved or need a login (HF_TOKEN in the environment)") from None
    except HfHubHTTPError as exc:
        raise CAPInputError(f"the Hub refused the download of {src.repo_id}", argument="NAME", got=str(exc)[:100],
                            fix="try again later, or log in (HF_TOKEN) if the dataset is gated") from None
    make_dirs(out)
    n = _copy_allowed(Path(snap), out, src.allow)
    if not n:
        raise CAPInputError(f"no file of {src.repo_id} matched", file=str(snap), expected=", ".join(src.allow),
                            fix="the dataset changed its layout; fetch with --revision of a known commit")
    notes = [f"{name}: {n} files of {src.repo_id} copied to {out} ({'cached copy' if offline else 'Hub'})."]
    if src.arrange is not None:
        notes += src.arrange(out)
    notes.append(f"{name}: read it with {src.reads_with}.")
    return out, notes
