"""The :class:`Dataset` container and its on-disk form.

A dataset directory holds three Parquet files written by the importers:

- ``items.parquet`` — :data:`cap_core.schema.ITEMS_SCHEMA`
- ``judgments.parquet`` — :data:`cap_core.schema.JUDGMENTS_SCHEMA`
- ``declarations.parquet`` — :data:`cap_core.schema.DECLARATION_SCHEMA`
- ``notices.txt`` — optional; the importers' remarks, one per line, UTF-8
- ``texts.parquet`` — optional; the items' texts (:data:`cap_core.schema.ITEM_TEXT_SCHEMA`)

:data:`DATASET_FILES` lists these names (and :data:`JUDGMENT_PARTS` the folder of judgments
Parquet parts the streamed engine reads instead of ``judgments.parquet``); the CLI refuses an
output at any of them inside an input dataset folder (:func:`cap_core.cli.options.check_paths`).

Several benchmarks may live in one directory (the ``benchmark`` column tells them
apart). No benchmark text is stored: ids, categories, gold labels, verdicts, scores
and lengths only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import (
    DECLARATION_SCHEMA,
    declared_variants,
    validate_declarations,
    validate_items,
    validate_judgments,
    validate_texts,
)

__all__ = ["Dataset", "load_dataset", "save_dataset", "check_dataset_folder", "concat_datasets", "DATASET_FILES",
           "JUDGMENT_PARTS"]

_FILES = ("items", "judgments", "declarations")
_NOTICES = "notices.txt"
_TEXTS = "texts.parquet"
#: Every file a dataset folder is read from (:func:`load_dataset`) and written to (:func:`save_dataset`).
DATASET_FILES: tuple[str, ...] = (*(f"{name}.parquet" for name in _FILES), _TEXTS, _NOTICES)
#: The folder of judgments Parquet parts read in place of ``judgments.parquet``
#: (:func:`cap_core.profile.engine_stream.judgment_files`).
JUDGMENT_PARTS = "judgments"


@dataclass(frozen=True)
class Dataset:
    """Validated items, judgments and coverage declarations.

    Attributes
    ----------
    items, judgments, declarations : polars.DataFrame
        Frames in the documented schemas (see :mod:`cap_core.schema`).
    notices : tuple of str
        Things the user should know about how the data was read (encoding
        fallbacks, dropped rows, ...). Never errors.
    texts : polars.DataFrame or None
        The items' question and responses (:data:`cap_core.schema.TEXTS_SCHEMA`) when the
        data came with them (a user's local copy, an upload with text columns, an
        ``evaluate`` run); ``None`` otherwise (``data/default`` is text-free). No number
        reads it; the drill-downs show it.
    """

    items: pl.DataFrame
    judgments: pl.DataFrame
    declarations: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=DECLARATION_SCHEMA))
    notices: tuple[str, ...] = ()
    texts: pl.DataFrame | None = None
    #: per-instance memo (the fingerprint); the tables of a Dataset are never modified in place
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        items: pl.DataFrame,
        judgments: pl.DataFrame,
        declarations: pl.DataFrame | None = None,
        *,
        notices: tuple[str, ...] = (),
        file: str | None = None,
        texts: pl.DataFrame | None = None,
    ) -> "Dataset":
        """Validate the three tables and return a :class:`Dataset`.

        Raises
        ------
        CAPInputError
            From :func:`cap_core.schema.validate_items` / ``validate_judgments`` /
            ``validate_declarations`` (variants the declarations name are known to the
            items check).
        """
        if declarations is None:
            declarations = pl.DataFrame(schema=DECLARATION_SCHEMA)
        declarations = validate_declarations(declarations, file=file)
        items = validate_items(items, file=file, variants=declared_variants(declarations))
        judgments = validate_judgments(judgments, items, file=file)
        if texts is not None:
            texts = validate_texts(texts, items, file=file)
        return cls(items=items, judgments=judgments, declarations=declarations, notices=tuple(notices), texts=texts)

    @property
    def benchmarks(self) -> list[str]:
        """Benchmarks present in ``items``, sorted."""
        return sorted(self.items.get_column("benchmark").unique().to_list())

    @property
    def judges(self) -> list[str]:
        """Judges present in ``judgments``, sorted."""
        return sorted(self.judgments.get_column("judge").unique().to_list())

    def fingerprint(self) -> str:
        """A content hash of the three tables (hex, 16 chars); equal data, equal hash.

        Computed once per instance (row hashes of every table, about 20 ms per million
        rows) and remembered, so caches keyed by it cost nothing on the next call.
        """
        if "fingerprint" in self._memo:
            return self._memo["fingerprint"]
        h = hashlib.blake2b(digest_size=8)
        for name in _FILES:
            frame: pl.DataFrame = getattr(self, name)
            h.update(name.encode())
            h.update(str(frame.schema).encode())
            h.update(frame.hash_rows(seed=0).to_numpy().tobytes())
        if self.texts is not None:  # text-free data keep the fingerprint they always had
            h.update(b"texts")
            h.update(self.texts.hash_rows(seed=0).to_numpy().tobytes())
        self._memo["fingerprint"] = h.hexdigest()
        return self._memo["fingerprint"]

    def select(self, *, benchmarks: list[str] | None = None, judges: list[str] | None = None) -> "Dataset":
        """Restrict to some benchmarks and/or judges (``None`` keeps all)."""
        items, judgments, decl = self.items, self.judgments, self.declarations
        if benchmarks is not None:
            items = items.filter(pl.col("benchmark").is_in(benchmarks))
            judgments = judgments.filter(pl.col("benchmark").is_in(benchmarks))
            decl = decl.filter(pl.col("benchmark").is_in(benchmarks))
        if judges is not None:
            judgments = judgments.filter(pl.col("judge").is_in(judges))
        texts = self.texts
        if texts is not None and benchmarks is not None:
            texts = texts.filter(pl.col("benchmark").is_in(benchmarks))
        return Dataset(items=items, judgments=judgments, declarations=decl, notices=self.notices, texts=texts)

    def keep_items(self, keys: pl.DataFrame) -> "Dataset":
        """Restrict to the items named in ``keys`` (columns ``benchmark``, ``item_id``), with their
        judgments and texts; declarations and notices are kept."""
        k = keys.select("benchmark", "item_id").unique()
        on = ["benchmark", "item_id"]
        texts = self.texts.join(k, on=on, how="semi") if self.texts is not None else None
        return Dataset(items=self.items.join(k, on=on, how="semi", maintain_order="left"),
                       judgments=self.judgments.join(k, on=on, how="semi", maintain_order="left"),
                       declarations=self.declarations, notices=self.notices, texts=texts)


def concat_datasets(datasets: list[Dataset]) -> Dataset:
    """Stack datasets of different benchmarks into one (re-validated)."""
    if not datasets:
        raise CAPInputError("no datasets to combine", argument="datasets", expected="at least one dataset",
                            fix="import a benchmark first")
    return Dataset.build(
        pl.concat([d.items for d in datasets], how="vertical"),
        pl.concat([d.judgments for d in datasets], how="vertical"),
        pl.concat([d.declarations for d in datasets], how="vertical"),
        notices=tuple(n for d in datasets for n in d.notices),
        texts=(pl.concat([d.texts for d in datasets if d.texts is not None], how="vertical")
               if any(d.texts is not None for d in datasets) else None),
    )


def check_dataset_folder(path: str | Path, argument: str = "--out") -> None:
    """Refuse writing a dataset into a folder that holds anything but a dataset's own files.

    A folder that is absent, empty or an earlier dataset (only names of :data:`DATASET_FILES`) may be
    written; a judging run's folder, a testbed or any folder with other files would come out mixed
    (the run's ``calls.parquet`` and ``run.json`` describing other data beside the new tables).

    Raises
    ------
    CAPInputError
        ``path`` is a file, or a folder holding other files (up to three named) or the judgments
        parts folder of a larger dataset.
    """
    out = Path(path)
    if not out.exists():
        return
    if not out.is_dir():
        raise CAPInputError("the output is a file, not a folder", argument=argument, got=str(out),
                            fix="name a new or empty folder")
    other = sorted(p.name for p in out.iterdir() if p.name not in DATASET_FILES)
    if other:
        shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
        raise CAPInputError("the output folder holds files that are not a dataset's", argument=argument,
                            file=str(out), expected="a new or empty folder, or an earlier dataset folder",
                            got=shown, fix="name a new or empty folder for the imported data")


def save_dataset(ds: Dataset, path: str | Path) -> Path:
    """Write ``ds`` as three zstd-compressed Parquet files under ``path`` (created), each whole or not
    at all (:func:`cap_core.outputs.write_file`).

    Raises
    ------
    CAPInputError
        The folder cannot be created or written.
    """
    from cap_core.outputs import make_dirs, remove_file, write_file

    out = Path(path)

    def parquet(frame: pl.DataFrame):
        return lambda p: frame.write_parquet(p, compression="zstd", statistics=False)

    try:
        make_dirs(out)
        for name in _FILES:
            write_file(out / f"{name}.parquet", parquet(getattr(ds, name)))
        if ds.notices:
            write_file(out / _NOTICES, "\n".join(ds.notices) + "\n")
        else:  # nor the remarks of the data it held before
            remove_file(out / _NOTICES)
        if ds.texts is not None:
            write_file(out / _TEXTS, parquet(ds.texts))
        else:  # a folder reused for text-free data keeps no stale texts
            remove_file(out / _TEXTS)
    except OSError as exc:
        raise CAPInputError(
            "cannot write the dataset directory",
            file=str(out),
            got=exc.strerror or type(exc).__name__,
            fix="choose a writable folder for --out",
        ) from None
    return out


def _read_notices(path: Path) -> tuple[str, ...]:
    """The lines of ``notices.txt``; CAPInputError naming the line if it is not UTF-8."""
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        byte = exc.start - raw.rfind(b"\n", 0, exc.start)  # 1-based byte of that line
        raise CAPInputError(
            "notices file is not UTF-8 text",
            file=str(path),
            row=line,
            expected="UTF-8 text, one notice per line",
            got=f"byte 0x{raw[exc.start]:02x} (byte {byte} of line {line})",
            fix="save notices.txt as UTF-8, or delete it (it only holds the importers' remarks)",
        ) from None
    return tuple(line for line in text.splitlines() if line.strip())


def load_dataset(path: str | Path) -> Dataset:
    """Read a dataset directory written by :func:`save_dataset` and validate it.

    Raises
    ------
    CAPInputError
        The directory or ``items.parquet`` / ``judgments.parquet`` is missing or
        unreadable, ``notices.txt`` is not UTF-8 (naming its line), or a table fails
        validation (the message names the Parquet file and its row).
    """
    root = Path(path)
    if not root.is_dir():
        raise CAPInputError(
            "dataset directory not found",
            file=str(root),
            expected="a directory holding items.parquet and judgments.parquet",
            fix="run `python -m cap_core import ...` first or point --data at the right folder",
        )
    frames = {}
    for name in _FILES:
        f = root / f"{name}.parquet"
        if not f.exists():
            if name == "declarations":
                frames[name] = pl.DataFrame(schema=DECLARATION_SCHEMA)
                continue
            raise CAPInputError(
                f"{name}.parquet missing from the dataset directory",
                file=str(f),
                expected=f"{name}.parquet",
                fix="re-run the importer that wrote this directory",
            )
        try:
            frames[name] = pl.read_parquet(f)
        except Exception as exc:  # pyarrow / polars raise many types
            raise CAPInputError(
                "file is not readable Parquet", file=str(f), got=type(exc).__name__, fix="re-run the importer"
            ) from None
    notes_file = root / _NOTICES
    notices = _read_notices(notes_file) if notes_file.is_file() else ()
    declarations = validate_declarations(frames["declarations"], file=str(root / "declarations.parquet"))
    items = validate_items(frames["items"], file=str(root / "items.parquet"), variants=declared_variants(declarations))
    judgments = validate_judgments(frames["judgments"], items, file=str(root / "judgments.parquet"))
    texts = None
    texts_file = root / _TEXTS
    if texts_file.is_file():
        try:
            raw = pl.read_parquet(texts_file)
        except Exception as exc:  # pyarrow / polars raise many types
            raise CAPInputError("file is not readable Parquet", file=str(texts_file), got=type(exc).__name__,
                                fix="re-run the importer, or delete texts.parquet (it only holds the items' texts)"
                                ) from None
        texts = validate_texts(raw, items, file=str(texts_file))
    return Dataset(items=items, judgments=judgments, declarations=declarations, notices=notices, texts=texts)
