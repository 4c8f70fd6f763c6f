"""Column names, dtypes and validation for the three CAP tables.

One data model flows through the whole project:

``items`` — one row per pairwise item (a variant of a base item counts as its own item)
    ================  ========  ==========================================================
    column            dtype     meaning
    ================  ========  ==========================================================
    benchmark         String    benchmark id, e.g. ``llmbar``, ``judgebench``
    item_id           String    unique within the benchmark
    base_item_id      String    groups the variants of one item; bootstrap unit
                                (defaults to ``item_id`` when absent)
    subset            String    native category (``knowledge``, ``Natural``, ...);
                                defaults to ``"all"``
    failure_type      String    ``factual_fabrication`` / ``logical_reversal`` /
                                ``overclaim`` / ``omission`` or null
    variant           String    one of :data:`VARIANTS` (``original``, ``plain``, ``polished``,
                                ``length_padded``, ``adversarial``) or a variant named by a
                                declaration with selector ``variant``; defaults ``original``
    gold              String    ``A`` or ``B``: the better response in the original order;
                                null where the source has no gold (preference-only files):
                                such items count only in metrics that need no gold
    flags             String    optional; ``;``-separated tags such as ``low_quality``
    len_a, len_b      Int64     optional; response lengths in characters, >= 0
    ================  ========  ==========================================================

    ``benchmark`` and ``item_id`` are never null or blank.

``judgments`` — one row per (judge, benchmark, item_id, order)
    ===================  =======  ========================================================
    judge                String   judge id, e.g. ``GPT-4/CoT``
    benchmark            String
    item_id              String   must exist in ``items`` for the benchmark
    order                String   ``AB`` (original presentation) or ``BA`` (swapped)
    verdict              String   ``A`` / ``B`` / ``tie`` / ``unparsed``, always
                                  expressed in the ORIGINAL response letters
    confidence           Float64  optional
    score_a, score_b     Float64  optional; graded scores of the original A and B
    rationale_supported  Int8     optional; 1 if an evaluator found the rationale
                                  supports the verdict, 0 if not, null if not judged
    cost_usd             Float64  optional; dollars, finite and >= 0
    latency_s            Float64  optional; seconds, finite and >= 0
    tokens               Int64    optional; >= 0
    verdict_recorded     String   optional; the verdict the SOURCE recorded (LLMBar
                                  ``winner``, JudgeBench ``decision``), same vocabulary
                                  and letters as ``verdict``; null when it records none
    verdict_rule         String   optional; which rule of :data:`VERDICT_RULES` produced
                                  ``verdict`` (e.g. equal scores -> tie)
    verdict_strength     Int8     optional; how strongly the verdict prefers its winner
                                  where the source grades it (:data:`ARENA_LABELS`:
                                  2 = significantly better ``>>``, 1 = slightly better
                                  ``>``, 0 = a tie ``=``); null where it does not
    judge_prompt         String   optional; the name of the judge prompt (template) the
                                  source used for this judgment, e.g. FastChat's
                                  ``pair-v2`` / ``pair-math-v1``: a setting of the judge,
                                  not a judge of its own; null where none is named
    ===================  =======  ========================================================

    ``judge``, ``benchmark`` and ``item_id`` are never null or blank. Every column holds
    one value per cell (no list or struct columns).

``profile`` — output of :func:`cap_core.profile.conditions.compute_profile`; see
:data:`PROFILE_SCHEMA`. ``value``, ``ci_low`` and ``ci_high`` are in **percent**.

``declarations`` — what an importer states about each (benchmark, condition) cell of
the coverage matrix; see :data:`DECLARATION_SCHEMA`. A ``selector`` is one of
:data:`SELECTORS`.

Every validator raises :class:`cap_core.errors.CAPInputError` for bad input, naming the
file, the 1-based file row (the header is row 0) and the column, what was expected, what
was found and the fix; it is the one place where the importers' tables are checked.

Condition ids and names follow CAP (arXiv:2610.09229) Table 1; coverage statuses follow
its Table 2.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import polars as pl

from cap_core.errors import CAPInputError

__all__ = [
    "suggest_name",
    "CONDITIONS",
    "CONDITION_IDS",
    "CONTENT_FAILURE_TYPES",
    "STATUSES",
    "VERDICTS",
    "SWAP",
    "unswap",
    "VERDICT_RULES",
    "ARENA_LABELS",
    "arena_label",
    "ORDERS",
    "GOLDS",
    "METRICS",
    "ITEMS_SCHEMA",
    "ITEMS_REQUIRED",
    "ITEM_TEXT_SCHEMA",
    "JUDGMENTS_SCHEMA",
    "JUDGMENTS_REQUIRED",
    "PROFILE_SCHEMA",
    "DECLARATION_SCHEMA",
    "MAX_ID_LENGTH",
    "VARIANTS",
    "ITEM_SELECTORS",
    "SELECTORS",
    "declared_variants",
    "validate_items",
    "validate_judgments",
    "validate_declarations",
    "validate_profile",
    "empty_profile",
]

#: CAP Table 1: id -> (name, category).
CONDITIONS: dict[str, tuple[str, str]] = {
    "C1": ("Factual Sensitivity", "content"),
    "C2": ("Logical Sensitivity", "content"),
    "C3": ("Scope-Overclaim", "content"),
    "C4": ("Scope-Omission", "content"),
    "C5": ("Style Robustness", "robustness"),
    "C6": ("Length Robustness", "robustness"),
    "C7": ("Position Robustness", "robustness"),
    "C8": ("Rationale Quality", "explanation"),
}
CONDITION_IDS: tuple[str, ...] = tuple(CONDITIONS)

#: Planted failure type carried by the items of each content condition (CAP Table 1).
CONTENT_FAILURE_TYPES: dict[str, str] = {
    "C1": "factual_fabrication",
    "C2": "logical_reversal",
    "C3": "overclaim",
    "C4": "omission",
}

#: Coverage statuses (CAP Table 2), best first.
STATUSES: tuple[str, ...] = ("direct", "approximate", "augmented", "unavailable")
VERDICTS: tuple[str, ...] = ("A", "B", "tie", "unparsed")
#: The letter each verdict becomes when the two responses trade places (the one de-swapping
#: map): a verdict read in the swapped presentation (order ``BA``) is written in the item's
#: original letters with it, and back. A tie and an unparsed verdict stay as they are.
SWAP: dict[str, str] = {"A": "B", "B": "A", "tie": "tie", "unparsed": "unparsed"}

#: Arena-Hard's five-level comparison labels (lmarena/arena-hard-auto ``show_result.py``,
#: ``utils/judge_utils.py``; JudgeBench's arena_hard judge writes the same) -> (verdict in the
#: letters of the game that produced the label, strength): 2 = significantly better (``>>``,
#: its ``show_result.py`` counts such a battle three times), 1 = slightly better, 0 = a tie.
#: Both spellings of each comparison are listed (``B<A`` is ``A>B``); any other label (``A>>>B``,
#: ``AB``, none) is no verdict. The one reading of these labels (:func:`arena_label`).
ARENA_LABELS: dict[str, tuple[str, int]] = {
    "A>>B": ("A", 2), "B<<A": ("A", 2),
    "A>B": ("A", 1), "B<A": ("A", 1),
    "A=B": ("tie", 0), "B=A": ("tie", 0),
    "B>A": ("B", 1), "A<B": ("B", 1),
    "B>>A": ("B", 2), "A<<B": ("B", 2),
}


def arena_label(label: object) -> tuple[str, int | None]:
    """An Arena-Hard label -> ``(verdict, strength)`` by :data:`ARENA_LABELS`.

    ``verdict`` is ``A`` / ``B`` / ``tie`` in the letters of the game that wrote the label,
    or ``unparsed`` (strength None) for anything not in the table. Case, spaces and the
    ``[[...]]`` brackets of the judge's reply are ignored (``[[a >> b]]`` reads as ``A>>B``).
    """
    if not isinstance(label, str):
        return "unparsed", None
    key = label.strip().strip("[]").replace(" ", "").upper()
    return ARENA_LABELS.get(key, ("unparsed", None))

ORDERS: tuple[str, ...] = ("AB", "BA")
GOLDS: tuple[str, ...] = ("A", "B")

#: How an importer turned a source record into ``verdict`` (the ``verdict_rule`` column).
#: CAP's own rules (CAP App. L): equal scores are a tie, a missing or failed score is
#: unparsed; a source may have recorded something else (``verdict_recorded``).
VERDICT_RULES: dict[str, str] = {
    "written": "the judge's written verdict (LLMBar winner, JudgeBench decision), in the original letters",
    "scores": "the response with the higher score wins",
    "scores_equal_tie": "equal scores: CAP records a tie (the source may have resolved it by position)",
    "score_missing_unparsed": "a score missing, unreadable or marked as a parse failure (rubric -1): unparsed",
}

#: Metric names used in profiles.
#: ``pa`` position-averaged accuracy; ``strict`` strict both-correct;
#: ``consistency`` pure consistency; ``stable_but_wrong`` = consistency - strict;
#: ``supported`` C8 share supported among AB-correct items;
#: ``supported_correct`` C8 unconditional supported-and-correct rate;
#: ``natural_pa`` / ``surface_gap`` the LLMBar C5 reference subset and difference;
#: ``macro_pa`` the unweighted mean of per-subset overall pa (profiles by subset).
METRICS: tuple[str, ...] = (
    "pa",
    "strict",
    "consistency",
    "stable_but_wrong",
    "supported",
    "supported_correct",
    "natural_pa",
    "surface_gap",
    "macro_pa",
)

ITEMS_SCHEMA: dict[str, pl.DataType] = {
    "benchmark": pl.String,
    "item_id": pl.String,
    "base_item_id": pl.String,
    "subset": pl.String,
    "failure_type": pl.String,
    "variant": pl.String,
    "gold": pl.String,
    "flags": pl.String,
    "len_a": pl.Int64,
    "len_b": pl.Int64,
}
ITEMS_REQUIRED: tuple[str, ...] = ("benchmark", "item_id", "gold")

#: Optional text columns of an items table: what a live run judges (``question``, the two
#: responses in the ORIGINAL order) and, where the source says, the model that wrote each
#: response (``author_a`` / ``author_b``; null when unknown). :func:`validate_items` drops
#: them from the items table; a dataset keeps them, when it has them, in its separate
#: ``texts`` table (:data:`TEXTS_SCHEMA`, :func:`validate_texts`, ``texts.parquet``), so
#: numbers never depend on texts and ``data/default`` stays text-free. The importers'
#: ``read_texts`` functions read them from the user's local copy.
ITEM_TEXT_SCHEMA: dict[str, pl.DataType] = {
    "question": pl.String,
    "response_a": pl.String,
    "response_b": pl.String,
    "author_a": pl.String,
    "author_b": pl.String,
}

#: The optional ``texts`` table of a dataset: one row per item that has texts.
TEXTS_SCHEMA: dict[str, pl.DataType] = {"benchmark": pl.String, "item_id": pl.String, **ITEM_TEXT_SCHEMA}

JUDGMENTS_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String,
    "benchmark": pl.String,
    "item_id": pl.String,
    "order": pl.String,
    "verdict": pl.String,
    "confidence": pl.Float64,
    "score_a": pl.Float64,
    "score_b": pl.Float64,
    "rationale_supported": pl.Int8,
    "cost_usd": pl.Float64,
    "latency_s": pl.Float64,
    "tokens": pl.Int64,
    "verdict_recorded": pl.String,
    "verdict_rule": pl.String,
    "verdict_strength": pl.Int8,
    "judge_prompt": pl.String,
}
JUDGMENTS_REQUIRED: tuple[str, ...] = ("judge", "benchmark", "item_id", "order", "verdict")

PROFILE_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String,
    "benchmark": pl.String,
    "subset": pl.String,
    "condition": pl.String,  # C1..C8 or "overall"
    "metric": pl.String,  # one of METRICS
    "value": pl.Float64,  # percent, null when not measurable
    "ci_low": pl.Float64,  # percent
    "ci_high": pl.Float64,  # percent
    "n_items": pl.Int64,  # units in the denominator
    "n_excluded": pl.Int64,  # units forced not-correct by tie / unparsed / missing (failures="exclude": units dropped)
    "n_not_received": pl.Int64,  # units of the cell the judge has no judgment on (outside n; cap_core.verdicts)
    "status": pl.String,  # one of STATUSES ("" for overall)
    "operator": pl.String,  # how the cell was measured, in words
    "primary": pl.Boolean,  # the headline metric of this condition
    "source": pl.String,  # "computed" or "published: CAP Table N"
}

DECLARATION_SCHEMA: dict[str, pl.DataType] = {
    "benchmark": pl.String,
    "condition": pl.String,
    "status": pl.String,
    "operator": pl.String,
    # which item column selects the condition's items: one of SELECTORS (failure_type |
    # subset | variant | flags, or order for C7, rationale for C8)
    "selector": pl.String,
    # the values of ``selector`` that define the condition's items (e.g. ["knowledge"])
    "values": pl.List(pl.String),
    # reference values (plain variant for C5/C6, Natural subset for LLMBar C5)
    "reference": pl.List(pl.String),
}

_OPTIONAL_DEFAULTS_ITEMS = {"subset": "all", "variant": "original"}

#: Presentation variants every page knows: ``original`` (as published), ``plain`` (the
#: reference of a generated pair), ``polished`` (CAP C5 style rewrite), ``length_padded``
#: (CAP C6 padding) and ``adversarial``. A declaration with selector ``variant`` may name
#: further variants of its benchmark (see :func:`declared_variants`).
VARIANTS: tuple[str, ...] = ("original", "plain", "polished", "length_padded", "adversarial")

#: Item columns a declaration may select a condition's items by (CAP Appendix D).
ITEM_SELECTORS: tuple[str, ...] = ("subset", "failure_type", "variant", "flags")
#: Every declaration ``selector``: the item columns, plus ``order`` (C7, the AB/BA
#: orders of the judgments) and ``rationale`` (C8, ``rationale_supported``).
SELECTORS: tuple[str, ...] = ITEM_SELECTORS + ("order", "rationale")

#: Longest id (judge, benchmark, item_id, ...) accepted, in characters.
MAX_ID_LENGTH = 500
#: Id-like text columns whose length is checked.
ID_COLUMNS: tuple[str, ...] = ("judge", "benchmark", "item_id", "base_item_id", "subset", "variant")

#: Id columns that must hold a non-empty value on every row.
_PRESENT_ITEMS: dict[str, str] = {
    "benchmark": "name the benchmark on every row (e.g. mine)",
    "item_id": "give every item an id (any text, e.g. q1 or 007)",
}
_PRESENT_JUDGMENTS: dict[str, str] = {
    "judge": "name the judge on every row",
    "benchmark": "name the benchmark on every row (the same name as in the items table)",
    "item_id": "give every judgment the item_id of its item",
}
#: Numeric columns that cannot be negative (or NaN / infinite), with what they count.
_NONNEGATIVE_ITEMS: dict[str, str] = {
    "len_a": "a response length in characters, 0 or more",
    "len_b": "a response length in characters, 0 or more",
}
_NONNEGATIVE_JUDGMENTS: dict[str, str] = {
    "cost_usd": "a cost in dollars, 0 or more",
    "latency_s": "a latency in seconds, 0 or more",
    "tokens": "a token count, 0 or more",
}

# Hidden column carrying each row's 1-based row in the file, so that every message names
# the file's row even when the validated frame was derived from it (a joined file's items).
_ROW = "__cap_file_row__"


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def unswap(verdict: str, order: str) -> str:
    """``verdict`` as written in presentation ``order`` -> the item's original letters.

    ``order`` ``"BA"`` (the responses shown swapped) maps through :data:`SWAP`; any other
    order returns ``verdict`` unchanged.

    Raises
    ------
    KeyError
        A ``BA`` verdict outside :data:`SWAP`'s keys (callers check their vocabulary first).
    """
    return SWAP[verdict] if order == "BA" else verdict


def did_you_mean(name: str, allowed: Iterable[str], otherwise: str) -> str:
    """The fix text for a misspelt ``name``: ``"did you mean 'X'?"`` with :func:`suggest_name`'s
    closest allowed name, else ``otherwise``."""
    near = suggest_name(name, allowed)
    return f"did you mean {near!r}?" if near else otherwise


def suggest_name(name: str, allowed: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The allowed name closest to ``name`` (``difflib.get_close_matches``, case-insensitive, likeness at
    least ``cutoff``), if any."""
    allowed = list(allowed)
    import difflib  # only an error message needs it

    match = difflib.get_close_matches(str(name).lower(), [a.lower() for a in allowed], n=1, cutoff=cutoff)
    if not match:
        return None
    for a in allowed:
        if a.lower() == match[0]:
            return a
    return None


def _row_numbers(df: pl.DataFrame) -> pl.Series:
    """1..n as the hidden row column, cut into the same chunks as ``df``'s columns.

    A table read from Parquet holds its columns in chunks (one per row group); a new
    column of one chunk would make polars copy every column into matching chunks at the
    next operation, which at ten million verdicts is most of a gigabyte of strings.
    """
    n = df.height
    if not df.width or n == 0:
        return pl.Series(_ROW, range(1, n + 1), dtype=pl.Int64)
    layout = [len(c) for c in df.get_column(df.columns[0]).get_chunks()]
    if len(layout) == 1 or any([len(c) for c in df.get_column(col).get_chunks()] != layout for col in df.columns[1:]):
        return pl.int_range(1, n + 1, dtype=pl.Int64, eager=True).alias(_ROW)
    pieces, start = [], 0
    for m in layout:
        pieces.append(pl.int_range(start + 1, start + m + 1, dtype=pl.Int64, eager=True).alias(_ROW))
        start += m
    return pl.concat(pieces, rechunk=False)


def _numbered(df: pl.DataFrame, rows: Iterable[int] | None) -> pl.DataFrame:
    """``df`` with the hidden file-row column (``rows``, else 1..n)."""
    if rows is None:
        return df.with_columns(_row_numbers(df))
    rows = pl.Series(_ROW, list(rows), dtype=pl.Int64)
    if rows.len() != df.height:
        raise CAPInputError(
            "one file row number per table row is needed",
            argument="rows",
            expected=f"{df.height} row numbers",
            got=rows.len(),
            fix="pass the file row of every row of the table, or leave rows out",
        )
    return df.with_columns(rows)


def _first(bad: pl.DataFrame, column: str | None = None):
    """(file row, value of ``column``) of the first row of ``bad``."""
    row = int(bad[_ROW][0])
    if column is None:
        return row, None
    value = bad[column].to_list()[0]
    return row, value


def _raise_first(
    df: pl.DataFrame, bad_rows: pl.Expr, problem: str, *, file: str | None, column: str, expected: str, fix: str
) -> None:
    """Raise :class:`CAPInputError` for the first row matching ``bad_rows``, if any."""
    bad = df.filter(bad_rows)
    if bad.height:
        row, got = _first(bad, column)
        raise CAPInputError(problem, file=file, row=row, column=column, expected=expected, got=got, fix=fix)


def _check_nonempty(df: pl.DataFrame, table: str, file: str | None) -> None:
    if df.height == 0:
        raise CAPInputError(
            f"the {table} table is empty",
            file=file,
            expected="at least one row",
            got="0 rows",
            fix=f"check that the file holds {table} records and that filters did not remove them all",
        )


def _check_columns(
    df: pl.DataFrame,
    required: Iterable[str],
    schema: Mapping[str, pl.DataType],
    table: str,
    file: str | None,
) -> None:
    present = [c for c in df.columns if c != _ROW]
    for col in required:
        if col in present:
            continue
        unknown = [c for c in present if c not in schema]
        guess = None
        for c in unknown:
            if suggest_name(c, [col]):
                guess = c
                break
        fix = (
            f"rename column {guess!r} to {col!r}"
            if guess
            else f"add a {col!r} column (required columns: {', '.join(required)})"
        )
        raise CAPInputError(
            f"missing column {col!r} in the {table} table",
            file=file,
            column=col,
            expected=f"columns {', '.join(required)}",
            got=sorted(present),
            fix=fix,
        )


_BOOL_TEXT = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}


def _check_scalar(df: pl.DataFrame, col: str, dtype: pl.DataType, table: str, file: str | None) -> None:
    """Reject a list / struct column (e.g. a Parquet ``verdict`` of type List) where one value per cell is due."""
    src = df.schema[col]
    if not src.is_nested() or dtype.is_nested():
        return
    kind = "struct" if isinstance(src, pl.Struct) else "list"
    bad = df.filter(pl.col(col).is_not_null())
    row, got = _first(bad, col) if bad.height else (None, None)
    raise CAPInputError(
        f"{kind} values in the {col} column of the {table} table (column type {src})",
        file=file,
        row=row,
        column=col,
        expected=f"one value per cell ({dtype})",
        got=got,
        fix=(f"store one {col} per row: explode the list into rows, or write its single value as plain {dtype}"
             if kind == "list" else f"store one {col} per row, as plain {dtype} rather than an object"),
    )


def _cast(df: pl.DataFrame, schema: Mapping[str, pl.DataType], table: str, file: str | None) -> pl.DataFrame:
    exprs = []
    for col, dtype in schema.items():
        if col not in df.columns:
            continue
        if df.schema[col] == dtype:
            continue
        _check_scalar(df, col, dtype, table, file)
        if dtype == pl.Boolean and df.schema[col] == pl.String:
            # text such as "true" / "False" / "1" / "0" (CSV files hold no booleans)
            mapped = (
                pl.col(col).str.strip_chars().str.to_lowercase()
                .replace_strict(_BOOL_TEXT, default=None, return_dtype=pl.Boolean)
            )
            _raise_first(
                df,
                pl.col(col).is_not_null() & mapped.is_null(),
                f"value of the wrong type in the {table} table",
                file=file,
                column=col,
                expected="true or false",
                fix=f"write true or false in {col!r} (or leave it empty)",
            )
            exprs.append(df.select(mapped.alias(col)).get_column(col))
            continue
        try:
            casted = df.get_column(col).cast(dtype, strict=True)
        except Exception:
            # find the first row that fails to cast
            row = got = None
            try:
                bad = df.filter(pl.col(col).is_not_null() & pl.col(col).cast(dtype, strict=False).is_null())
                if bad.height:
                    row, got = _first(bad, col)
            except Exception:  # the types cannot be cast at all: name the column only
                pass
            raise CAPInputError(
                f"value of the wrong type in the {table} table",
                file=file,
                row=row,
                column=col,
                expected=f"{dtype}",
                got=got,
                fix=f"make every value in {col!r} a {dtype} (or leave it empty)",
            ) from None
        exprs.append(casted.alias(col))
    return df.with_columns(exprs) if exprs else df


def _check_allowed(
    df: pl.DataFrame, col: str, allowed: Iterable[str], table: str, file: str | None, fix: str, *, nullable: bool = False
) -> None:
    allowed = tuple(allowed)
    cond = ~pl.col(col).is_in(list(allowed))
    cond = (cond & pl.col(col).is_not_null()) if nullable else (cond | pl.col(col).is_null())
    bad = df.filter(cond)
    if bad.height:
        row, got = _first(bad, col)
        raise CAPInputError(
            f"{col} outside the allowed set in the {table} table ({_rows(bad.height)})",
            file=file,
            row=row,
            column=col,
            expected="one of " + ", ".join(allowed),
            got=got,
            fix=fix,
        )


def _check_present(df: pl.DataFrame, fixes: Mapping[str, str], table: str, file: str | None) -> None:
    """Reject a null, empty or blank id (``item_id``, ``judge``, ``benchmark``)."""
    for col, fix in fixes.items():
        if col not in df.columns or df.schema[col] != pl.String:
            continue
        bad = df.filter(pl.col(col).is_null() | (pl.col(col).str.strip_chars() == ""))
        if bad.height:
            row, got = _first(bad, col)
            raise CAPInputError(
                f"empty {col} in the {table} table ({_rows(bad.height)})",
                file=file,
                row=row,
                column=col,
                expected=f"a non-empty {col} on every row",
                got=got or None,
                fix=fix,
            )


def _check_nonnegative(df: pl.DataFrame, meanings: Mapping[str, str], table: str, file: str | None) -> None:
    """Reject negative lengths, costs, latencies and token counts (and NaN or infinite ones)."""
    for col, meaning in meanings.items():
        if col not in df.columns:
            continue
        cond = pl.col(col) < 0
        if df.schema[col].is_float():
            cond = cond | pl.col(col).is_nan() | pl.col(col).is_infinite()
        bad = df.filter(pl.col(col).is_not_null() & cond)
        if bad.height:
            row, got = _first(bad, col)
            raise CAPInputError(
                f"{col} below 0 or not a finite number in the {table} table ({_rows(bad.height)})",
                file=file,
                row=row,
                column=col,
                expected=meaning,
                got=got,
                fix=f"correct the {col} values, or leave a cell empty when the value is unknown",
            )


def _has_repeats(key, bound: int) -> bool:
    """True if a non-negative integer key below ``bound`` occurs twice (``key``: a polars Series or numpy array).

    Small tables: polars hashes the integers. Large ones: a count per possible key when
    the keys are dense (``bound`` at most four times their number: one pass, 8 bytes per
    possible key), else a sort; either holds far less than a hash table of ten million keys.
    """
    if len(key) < 2:
        return False
    if isinstance(key, pl.Series) and len(key) < 1_000_000:  # no numpy on the start of a small command
        return bool(key.is_duplicated().any())
    import numpy as np

    key = key.to_numpy() if isinstance(key, pl.Series) else np.asarray(key)
    if bound <= 4 * key.size:
        return bool(np.bincount(key, minlength=0).max() > 1)
    srt = np.sort(key)
    return bool((srt[1:] == srt[:-1]).any())


def _check_unique(df: pl.DataFrame, keys: list[str], table: str, file: str | None) -> None:
    dup = df.filter(pl.struct(keys).is_duplicated())
    if dup.height:
        first = dup.row(0, named=True)
        same = dup.filter(pl.all_horizontal([pl.col(k).eq_missing(first[k]) for k in keys]))
        r1, r2 = int(same[_ROW][0]), int(same[_ROW][1])
        raise CAPInputError(
            f"duplicate key ({', '.join(keys)}) in the {table} table: rows {r1} and {r2} share a key "
            f"({dup.height} rows repeat some key)",
            file=file,
            row=r1,
            column=keys[-1],
            expected="each key once",
            got={k: first[k] for k in keys},
            fix=f"remove row {r2} (or give it a distinct key) and check the other repeated rows",
        )


def _check_id_lengths(df: pl.DataFrame, table: str, file: str | None) -> None:
    """Reject id cells longer than :data:`MAX_ID_LENGTH` (a broken quote or misplaced text column)."""
    for col in ID_COLUMNS:
        if col not in df.columns or df.schema[col] != pl.String:
            continue
        bad = df.filter(pl.col(col).str.len_chars() > MAX_ID_LENGTH)
        if bad.height:
            row, value = _first(bad, col)
            raise CAPInputError(
                f"{col} longer than {MAX_ID_LENGTH} characters in the {table} table ({_rows(bad.height)})",
                file=file,
                row=row,
                column=col,
                expected=f"an id of at most {MAX_ID_LENGTH} characters",
                got=f"{value[:40]}… ({len(value)} characters)",
                fix=f"shorten the {col} values; an id this long usually means a misplaced text column or an unclosed quote",
            )


def _check_variants(df: pl.DataFrame, known: tuple[str, ...], file: str | None) -> None:
    bad = df.filter(~pl.col("variant").is_in(list(known)))
    if bad.height:
        row, got = _first(bad, "variant")
        near = suggest_name(got, known)
        hint = f"did you mean {near!r}? " if near else ""
        raise CAPInputError(
            f"unknown variant in the items table ({_rows(bad.height)})",
            file=file,
            row=row,
            column="variant",
            expected="one of " + ", ".join(known),
            got=got,
            fix=hint + "write a known variant, or name a new one in a declarations row with selector 'variant'",
        )


def declared_variants(declarations: pl.DataFrame | None) -> tuple[str, ...]:
    """Variant names a (validated) declarations table introduces: ``values`` and
    ``reference`` of its rows with selector ``variant``, sorted. Empty without declarations."""
    if declarations is None or declarations.height == 0 or "selector" not in declarations.columns:
        return ()
    rows = declarations.filter(pl.col("selector") == "variant")
    names = set()
    for col in ("values", "reference"):
        if col in rows.columns:
            names.update(v for cell in rows[col].to_list() if cell for v in cell if v)
    return tuple(sorted(names))


def validate_items(
    df: pl.DataFrame,
    *,
    file: str | None = None,
    rows: Iterable[int] | None = None,
    variants: Iterable[str] = (),
) -> pl.DataFrame:
    """Check and normalise an ``items`` table.

    Parameters
    ----------
    df : polars.DataFrame
        Raw items; columns beyond :data:`ITEMS_SCHEMA` are dropped.
    file : str, optional
        Name used in error messages.
    rows : iterable of int, optional
        The 1-based file row of each row of ``df`` (default 1..n), named in error
        messages; e.g. the first judgment row of each item of a joined file.
    variants : iterable of str, optional
        Variant names allowed beside :data:`VARIANTS` (see :func:`declared_variants`).

    Returns
    -------
    polars.DataFrame
        Columns in :data:`ITEMS_SCHEMA` order with those dtypes; ``base_item_id``
        defaults to ``item_id``, ``subset`` to ``"all"``, ``variant`` to ``"original"``;
        absent optional columns are added as nulls.

    Raises
    ------
    CAPInputError
        Empty table, missing column (with a rename suggestion for near misses), a
        list or struct column, uncastable value, a null or blank ``benchmark`` or
        ``item_id``, an id longer than :data:`MAX_ID_LENGTH` characters, ``gold`` not
        A/B, unknown ``failure_type``, a variant outside :data:`VARIANTS` and
        ``variants`` (suggesting the nearest name), a negative (or NaN) ``len_a`` /
        ``len_b``, duplicate (benchmark, item_id) (naming the first row and the row
        that repeats it).
    """
    _check_nonempty(df, "items", file)
    _check_columns(df, ITEMS_REQUIRED, ITEMS_SCHEMA, "items", file)
    df = _numbered(df, rows)
    df = _cast(df, ITEMS_SCHEMA, "items", file)
    _check_present(df, _PRESENT_ITEMS, "items", file)
    _check_id_lengths(df, "items", file)
    if "gold" in df.columns and df.schema["gold"] == pl.String:
        df = df.with_columns(pl.col("gold").str.strip_chars())
    _check_allowed(df, "gold", GOLDS, "items", file,
                   "gold must say which response is better: A or B (leave it empty where no gold is known)",
                   nullable=True)
    if "failure_type" in df.columns:
        _check_allowed(
            df,
            "failure_type",
            CONTENT_FAILURE_TYPES.values(),
            "items",
            file,
            "use one of the four planted failure types or leave the cell empty",
            nullable=True,
        )
    _check_nonnegative(df, _NONNEGATIVE_ITEMS, "items", file)
    fill = []
    if "base_item_id" not in df.columns:
        fill.append(pl.col("item_id").alias("base_item_id"))
    else:
        fill.append(pl.coalesce("base_item_id", "item_id").alias("base_item_id"))
    for col, default in _OPTIONAL_DEFAULTS_ITEMS.items():
        if col in df.columns:
            fill.append(pl.col(col).fill_null(default))
        else:
            fill.append(pl.lit(default).alias(col))
    df = df.with_columns(fill)
    _check_variants(df, tuple(dict.fromkeys((*VARIANTS, *variants))), file)
    for col, dtype in ITEMS_SCHEMA.items():
        if col not in df.columns:
            df = df.with_columns(pl.lit(None, dtype=dtype).alias(col))
    df = df.select(*ITEMS_SCHEMA, _ROW)
    _check_unique(df, ["benchmark", "item_id"], "items", file)
    return df.drop(_ROW)


def _values_pass(checks, df: pl.DataFrame, columns: Iterable[str]) -> bool:
    """True if ``checks(frame)`` raises nothing on the distinct values of each of ``columns``.

    For checks that depend on one cell's value only, passing on the distinct values means
    every row passes; a failure there is re-run on the rows by the caller, so the error
    names the first bad row.
    """
    try:
        for col in dict.fromkeys(columns):
            if col in df.columns:
                u = df.select(pl.col(col).unique())
                checks(u.with_columns(pl.lit(0, dtype=pl.Int64).alias(_ROW)))
    except CAPInputError:
        return False
    return True


def _judgment_value_checks(df: pl.DataFrame, file: str | None) -> None:
    """The per-value checks of :func:`validate_judgments`, in order, on the columns ``df`` holds."""
    _check_present(df, _PRESENT_JUDGMENTS, "judgments", file)
    _check_id_lengths(df, "judgments", file)
    if "order" in df.columns:
        _check_allowed(df, "order", ORDERS, "judgments", file, "AB is the original presentation, BA the swapped one")
    if "verdict" in df.columns:
        _check_allowed(
            df,
            "verdict",
            VERDICTS,
            "judgments",
            file,
            "map verdicts back to the original responses and write unreadable ones as 'unparsed'",
        )
    if "verdict_recorded" in df.columns:
        _check_allowed(df, "verdict_recorded", VERDICTS, "judgments", file,
                       "write the source's verdict in the original letters (A, B, tie, unparsed) or leave it empty",
                       nullable=True)
    if "verdict_rule" in df.columns:
        _check_allowed(df, "verdict_rule", tuple(VERDICT_RULES), "judgments", file,
                       "name one of the documented verdict rules or leave it empty", nullable=True)
    if "verdict_strength" in df.columns:
        _raise_first(
            df,
            pl.col("verdict_strength").is_not_null() & ~pl.col("verdict_strength").is_in([0, 1, 2]),
            "verdict_strength outside the allowed set in the judgments table",
            file=file,
            column="verdict_strength",
            expected="0 (tie), 1 (slightly better), 2 (significantly better) or empty",
            fix="write the strength of a graded verdict (Arena-Hard: A>>B is 2, A>B is 1, A=B is 0), or leave it empty",
        )
    if "rationale_supported" in df.columns:
        _raise_first(
            df,
            pl.col("rationale_supported").is_not_null() & ~pl.col("rationale_supported").is_in([0, 1]),
            "rationale_supported outside the allowed set in the judgments table",
            file=file,
            column="rationale_supported",
            expected="0, 1 or empty",
            fix="write 1 when the evaluator found the rationale supports the verdict, 0 otherwise",
        )


def validate_judgments(
    df: pl.DataFrame, items: pl.DataFrame | None = None, *, file: str | None = None, rows: Iterable[int] | None = None,
    positions: bool = False,
) -> pl.DataFrame:
    """Check and normalise a ``judgments`` table.

    Parameters
    ----------
    df : polars.DataFrame
        Raw judgments; extra columns are dropped.
    items : polars.DataFrame, optional
        Validated items. When given, every judgment must point at an existing
        (benchmark, item_id).
    file : str, optional
        Name used in error messages.
    rows : iterable of int, optional
        The 1-based file row of each row of ``df`` (default 1..n).
    positions : bool
        Also return each judgment's item as its row in ``items`` (Int64 Series; needs
        ``items``): the join the checks make, for a caller that codes the judgments next.

    Returns
    -------
    polars.DataFrame
        Columns in :data:`JUDGMENTS_SCHEMA` order and dtypes; absent optional
        columns are added as nulls. With ``positions``: ``(frame, item rows)``.

    Raises
    ------
    CAPInputError
        Empty table, missing column, a list or struct column (e.g. a Parquet
        ``verdict`` of type List), uncastable value, a null or blank ``judge`` /
        ``benchmark`` / ``item_id``, an id longer than :data:`MAX_ID_LENGTH`
        characters, ``order`` not AB/BA, ``verdict`` (or a non-null ``verdict_recorded``) not in
        A/B/tie/unparsed, a ``verdict_rule`` outside :data:`VERDICT_RULES`, ``verdict_strength`` not 0/1/2,
        ``rationale_supported`` not 0/1, a negative (or NaN / infinite) ``cost_usd``,
        ``latency_s`` or ``tokens``, duplicate (judge, benchmark, item_id, order), a
        judgment with no item.
    """
    _check_nonempty(df, "judgments", file)
    _check_columns(df, JUDGMENTS_REQUIRED, JUDGMENTS_SCHEMA, "judgments", file)
    df = _numbered(df, rows)
    df = _cast(df, JUDGMENTS_SCHEMA, "judgments", file)
    item_pos = None
    if items is not None and {"benchmark", "item_id"} <= set(df.columns):
        # every judgment's item as an integer (null: no such item), joined once (lazy, so only the integer
        # column is materialised, not the joined strings); with it the key below is one Int64
        item_pos = _item_rows(df, items)
    # every check below depends on a cell's value only: run them on each column's distinct values first
    # (a few judges, two orders, four verdicts) and, only if one fails there, on the rows for the message.
    # When every judgment names an item of the validated items table, its benchmark and item_id are
    # values that table has already passed, so their distinct values (one per item) need no second look.
    columns = [*_PRESENT_JUDGMENTS, *ID_COLUMNS, "order", "verdict", "verdict_recorded", "verdict_rule",
               "verdict_strength", "rationale_supported"]
    if item_pos is not None and not item_pos.null_count():
        columns = [c for c in columns if c not in ("benchmark", "item_id")]
    if not _values_pass(lambda t: _judgment_value_checks(t, file), df, columns):
        _judgment_value_checks(df, file)
    _check_nonnegative(df, _NONNEGATIVE_JUDGMENTS, "judgments", file)
    for col, dtype in JUDGMENTS_SCHEMA.items():
        if col not in df.columns:
            df = df.with_columns(pl.lit(None, dtype=dtype).alias(col))
    df = df.select(*JUDGMENTS_SCHEMA, _ROW)
    keys = ["judge", "benchmark", "item_id", "order"]
    if item_pos is None or item_pos.null_count():
        _check_unique(df, keys, "judgments", file)
    else:
        judge = df.get_column("judge").cast(pl.Categorical).to_physical().cast(pl.Int64)
        n_judges = int(judge.max()) + 1
        key = (item_pos * n_judges + judge) * 2 + (df.get_column("order") == "BA").cast(pl.Int64)
        del judge
        if _has_repeats(key, items.height * n_judges * 2):
            _check_unique(df, keys, "judgments", file)  # the message names the first repeated key
    if items is not None and item_pos.null_count():
        orphan = df.filter(item_pos.is_null()).sort(_ROW)
        if orphan.height:
            first = orphan.row(0, named=True)
            raise CAPInputError(
                f"judgment for an item that is not in the items table ({_rows(orphan.height)})",
                file=file,
                row=int(first[_ROW]),
                column="item_id",
                expected="an item_id listed in items for benchmark " + repr(first["benchmark"]),
                got=first["item_id"],
                fix="import the items together with the judgments, or correct the item_id",
            )
    if positions:
        if item_pos is None:
            raise CAPInputError("item positions need the items table", argument="items", expected="the items",
                                got=None, fix="pass the validated items")
        return df.drop(_ROW), item_pos
    return df.drop(_ROW)


def _item_rows(df: pl.DataFrame, items: pl.DataFrame) -> pl.Series:
    """Each row's item as its row in ``items`` (Int64; null when ``items`` has no such benchmark and item_id).

    Joined on one 64-bit hash of (benchmark, item_id) instead of the two strings (several times
    cheaper for millions of judgments), then checked: every matched row must name the same
    benchmark and item_id as its item, and the items' hashes must be distinct; if a hash
    collision broke either (never seen in practice), the strings are joined as they are.
    """
    def hashed(frame: pl.DataFrame) -> pl.Expr:
        return (pl.col("benchmark").hash(seed=0) ^ pl.col("item_id").hash(seed=1)).alias("_h")

    rows = pl.int_range(pl.len(), dtype=pl.Int64).alias("_item")
    keys = items.lazy().select(hashed(items), rows).collect()
    if keys.get_column("_h").n_unique() == keys.height:
        pos = (df.lazy().select(hashed(df)).join(keys.lazy(), on="_h", how="left", maintain_order="left")
               .select("_item").collect().to_series())
        found = pos.drop_nulls()
        if found.len() == 0 or all(
                items.get_column(c).gather(found).equals(df.get_column(c).filter(pos.is_not_null()))
                for c in ("item_id", "benchmark")):
            return pos
    return df.lazy().select("benchmark", "item_id").join(
        items.lazy().select("benchmark", "item_id", rows), on=["benchmark", "item_id"], how="left",
        maintain_order="left").select("_item").collect().to_series()


def validate_declarations(
    df: pl.DataFrame, *, file: str | None = None, rows: Iterable[int] | None = None
) -> pl.DataFrame:
    """Check a coverage ``declarations`` table (see :data:`DECLARATION_SCHEMA`).

    Parameters
    ----------
    df : polars.DataFrame
        Declarations; absent columns are added as nulls, extra columns dropped.
    file : str, optional
        Name used in error messages.
    rows : iterable of int, optional
        The 1-based file row of each row of ``df`` (default 1..n).

    Returns
    -------
    polars.DataFrame
        :data:`DECLARATION_SCHEMA` columns and dtypes.

    Raises
    ------
    CAPInputError
        A value of the wrong type, unknown condition id or status (CAP Tables 1 and
        2), a ``selector`` outside :data:`SELECTORS` (a column the items table does not
        have; the nearest name is suggested), or a duplicate (benchmark, condition).
    """
    for col, dtype in DECLARATION_SCHEMA.items():
        if col not in df.columns:
            df = df.with_columns(pl.lit(None, dtype=dtype).alias(col))
    df = _numbered(df.select(list(DECLARATION_SCHEMA)), rows)
    for col, dtype in DECLARATION_SCHEMA.items():
        if df.schema[col] == dtype:
            continue
        try:
            df = df.with_columns(pl.col(col).cast(dtype, strict=True))
        except Exception:
            raise CAPInputError(
                "value of the wrong type in the declarations table",
                file=file,
                column=col,
                expected=str(dtype),
                got=str(df.schema[col]),
                fix=f"write {col!r} as {'a list of names' if dtype.is_nested() else 'text'}",
            ) from None
    _check_allowed(df, "condition", CONDITION_IDS, "declarations", file, "use condition ids C1..C8")
    _check_allowed(df, "status", STATUSES, "declarations", file, "use a CAP Table 2 coverage status")
    bad = df.filter(pl.col("selector").is_not_null() & ~pl.col("selector").is_in(list(SELECTORS)))
    if bad.height:
        row, got = _first(bad, "selector")
        near = suggest_name(got, SELECTORS)
        raise CAPInputError(
            "declaration selector names a column the items table does not have",
            file=file,
            row=row,
            column="selector",
            expected="one of " + ", ".join(ITEM_SELECTORS) + " (item columns), order (C7) or rationale (C8)",
            got=got,
            fix=(f"did you mean {near!r}?" if near else
                 f"copy the {got!r} values into the subset or flags column of the items and select that column"),
        )
    _check_unique(df, ["benchmark", "condition"], "declarations", file)
    return df.drop(_ROW)


def validate_profile(df: pl.DataFrame, *, file: str | None = None) -> pl.DataFrame:
    """Check a profile table and return it in :data:`PROFILE_SCHEMA` order and dtypes.

    Raises
    ------
    CAPInputError
        Missing required column, unknown condition or metric, or a value outside
        0-100 percent.
    """
    _check_nonempty(df, "profile", file)
    _check_columns(df, ("judge", "benchmark", "condition", "metric", "value"), PROFILE_SCHEMA, "profile", file)
    defaults = {"subset": "all", "status": "", "operator": "", "source": "computed", "primary": True}
    for col, dtype in PROFILE_SCHEMA.items():
        if col not in df.columns:
            df = df.with_columns(pl.lit(defaults.get(col), dtype=dtype).alias(col))
    df = _cast(_numbered(df.select(list(PROFILE_SCHEMA)), None), PROFILE_SCHEMA, "profile", file)
    _check_allowed(df, "condition", CONDITION_IDS + ("overall",), "profile", file, "use C1..C8 or overall")
    _check_allowed(df, "metric", METRICS, "profile", file, "use a documented CAP metric name")
    # surface_gap is a difference of two percentages and may be negative
    low = pl.when(pl.col("metric") == "surface_gap").then(-100.0).otherwise(0.0)
    _raise_first(
        df,
        (pl.col("value") < low) | (pl.col("value") > 100),
        "profile value outside 0-100 percent",
        file=file,
        column="value",
        expected="a percentage between 0 and 100",
        fix="write values in percent, not as proportions",
    )
    return df.drop(_ROW)


def empty_profile() -> pl.DataFrame:
    """An empty frame with :data:`PROFILE_SCHEMA`."""
    return pl.DataFrame(schema=PROFILE_SCHEMA)


def validate_texts(df: pl.DataFrame, items: pl.DataFrame, *, file: str | None = None) -> pl.DataFrame:
    """Check and normalise a dataset's ``texts`` table (question, responses and authors per item).

    Parameters
    ----------
    df : polars.DataFrame
        ``benchmark``, ``item_id`` and any of the :data:`ITEM_TEXT_SCHEMA` columns; other
        columns are dropped, absent text columns are added as nulls.
    items : polars.DataFrame
        The validated items table the texts belong to.
    file : str, optional
        Name used in error messages.

    Returns
    -------
    polars.DataFrame
        :data:`TEXTS_SCHEMA` columns (all String), one row per (benchmark, item_id).

    Raises
    ------
    CAPInputError
        Missing ``benchmark`` / ``item_id`` column, a list or struct cell, an empty id, a
        duplicate (benchmark, item_id), or a text row whose item is not in the items table.
    """
    _check_columns(df, ("benchmark", "item_id"), TEXTS_SCHEMA, "texts", file)
    df = _numbered(df, None)
    df = _cast(df, TEXTS_SCHEMA, "texts", file)
    _check_present(df, {"benchmark": "name the benchmark of every text row",
                        "item_id": "name the item of every text row"}, "texts", file)
    _check_unique(df, ["benchmark", "item_id"], "texts", file)
    unknown = df.join(items.select("benchmark", "item_id"), on=["benchmark", "item_id"], how="anti")
    if unknown.height:
        row, got = _first(unknown.sort(_ROW), "item_id")
        raise CAPInputError(
            f"text of an item the items table does not have ({_rows(unknown.height)})",
            file=file,
            row=row,
            column="item_id",
            expected="an item_id of the same benchmark in the items table",
            got=got,
            fix="drop the text rows of items that are not in the dataset, or add those items",
        )
    missing = [c for c in TEXTS_SCHEMA if c not in df.columns]
    df = df.with_columns(pl.lit(None, dtype=pl.String).alias(c) for c in missing)
    return df.select(list(TEXTS_SCHEMA)).sort("benchmark", "item_id")
