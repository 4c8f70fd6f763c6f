"""CSV and JSON export of the tables the dashboard shows.

Spreadsheet programs run a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula, and most ignore leading spaces and line breaks before the
``=``. Every such *text* cell of a CSV export is written with a leading single quote
(``'=SUM(A1)``, ``' =1+1``) so opening it never executes anything. Numeric columns are
left alone (``-0.4`` stays the number -0.4), and so is text that is just a number
(``"-5"``). JSON is not opened by spreadsheets: its text is kept exactly.

Numbers: both exports round floating-point columns to :data:`SIGNIFICANT_DIGITS` (12)
significant digits, which removes binary float noise (``57.99999999999999`` → ``58.0``,
``0.1 + 0.2`` → ``0.3``) and nothing a measurement carries (percentages hold 4-6
meaningful digits); tiny p-values keep their digits (``5.5114638448e-06``). NaN,
infinities and nulls are left as they are. The rounding is decimal-exact: a value is written
as the double nearest its 12-digit decimal (Python's ``format(x, ".12g")``), so a number the
user gave with at most 12 digits comes back as given at any magnitude (a requested weight of
``1e308`` is written ``1e308``; scaling by a power of ten, as ``round_sig_figs`` does, wrote
``1.0000000000000006e+308``).
"""

from __future__ import annotations

import os

from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from cap_core.errors import CAPInputError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FORMULA_PREFIXES", "SIGNIFICANT_DIGITS", "neutralise_formulas", "round_floats", "to_csv_bytes",
           "to_json_bytes", "write_csv"]

#: Leading characters that make a spreadsheet treat a text cell as a formula.
FORMULA_PREFIXES: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$"  # "-5", "+1.5e3": a number, not a formula
#: Significant digits kept in exported floats (float noise removal; see the module notes).
SIGNIFICANT_DIGITS = 12
#: 10**0 .. 10**22, the powers of ten a double holds exactly (:func:`_round_sig`).
_POW10 = tuple(float(10**i) for i in range(23))


def _frame_iv(df: object) -> pl.DataFrame:
    if not isinstance(df, pl.DataFrame):
        raise CAPInputError(
            "`df` must be a polars DataFrame",
            expected="polars.DataFrame",
            got=type(df).__name__,
            fix="export the table shown in the dashboard",
        )
    return df


def _starts_like_formula(col: str) -> pl.Expr:
    """Whether a text cell of ``col`` starts with a formula character (after leading whitespace for
    ``=``, ``+``, ``-``, ``@``); a plain number among them is told apart by :func:`_quote`."""
    c = pl.col(col)
    trimmed = c.str.strip_chars_start()  # spaces and line breaks before "=" still run it
    return pl.any_horizontal(
        [c.str.starts_with(p) for p in FORMULA_PREFIXES] + [trimmed.str.starts_with(p) for p in "=+-@"])


def _quote(col: str) -> pl.Expr:
    starts = _starts_like_formula(col) & ~pl.col(col).str.contains(_PLAIN_NUMBER)
    return pl.when(starts).then(pl.lit("'") + pl.col(col)).otherwise(pl.col(col)).alias(col)


def neutralise_formulas(df: pl.DataFrame) -> pl.DataFrame:
    """Prefix formula-like text cells with ``'``; list-of-text columns become ``"; "``-joined text.

    A cell is formula-like when it starts with one of :data:`FORMULA_PREFIXES`, or with
    ``=``, ``+``, ``-`` or ``@`` after leading whitespace, unless it is a plain number.

    Parameters
    ----------
    df : polars.DataFrame
        Any frame; only String (and List(String)) columns change.

    Returns
    -------
    polars.DataFrame
        Same shape and column order; numbers, booleans and nulls untouched.

    Raises
    ------
    CAPInputError
        ``df`` is not a polars DataFrame.
    """
    df = _frame_iv(df)
    text = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.List):
            df = df.with_columns(pl.col(name).cast(pl.List(pl.String)).list.join("; "))
            dtype = pl.String
        if dtype == pl.String:
            text.append(name)
    # most tables hold no cell that starts like a formula: one look says so, and nothing is rewritten
    if not text or not df.select(pl.any_horizontal(_starts_like_formula(c) for c in text).any()).item():
        return df
    return df.with_columns(_quote(c) for c in text)


def round_floats(df: pl.DataFrame, digits: int = SIGNIFICANT_DIGITS) -> pl.DataFrame:
    """Float32/Float64 columns rounded to ``digits`` significant digits; other columns untouched.

    Raises
    ------
    CAPInputError
        ``df`` is not a polars DataFrame, or ``digits`` is not an integer from 1 to 15.
    """
    df = _frame_iv(df)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 15:
        raise CAPInputError("digits must be an integer from 1 to 15", argument="digits", got=digits)
    cols = [n for n, t in df.schema.items() if t in (pl.Float32, pl.Float64)]
    if not cols:
        return df

    def exact(values: pl.Series) -> pl.Series:
        rounded = pl.Series(values.name, _round_sig(values.cast(pl.Float64).to_numpy(), digits))
        return rounded.zip_with(values.is_not_null(), values.cast(pl.Float64)).cast(values.dtype)

    return df.with_columns(exact(df[c]) for c in cols)


def _round_sig(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` (float64; NaN for null) each replaced by ``float(format(v, f".{digits}g"))``.

    Vectorised where that is exact: ``|v| = p / 10**k`` with ``10**k`` an exact double (``|k| <= 22``)
    and ``p`` holding ``digits`` integer digits; ``p`` is rounded to the nearest integer ``n`` and
    ``n / 10**k`` (one correctly rounded IEEE operation on two exact doubles) is the double nearest the
    decimal. Values where that could differ from the decimal rounding (a ``p`` within one ulp of a half,
    ``log10`` off by one at a power of ten, ``|k| > 22``: below about 1e-11 or above about 1e33) go
    through Python's ``format``; zeros, NaN and infinities are kept. numpy is imported here, not at the
    module's top: a cached judging rerun writes CSV without loading numpy (``tests/cap_core/cli/test_judge_cached.py``).
    """
    import numpy as np

    out = values.copy()
    mag = np.abs(values)
    ok = np.isfinite(mag) & (mag > 0)
    with np.errstate(all="ignore"):
        k = digits - 1 - np.floor(np.log10(np.where(ok, mag, 1.0))).astype(np.int64)
        ok &= np.abs(k) <= 22
        scale = np.array(_POW10)[np.clip(np.abs(k), 0, 22)]
        p = np.where(k >= 0, mag * scale, mag / scale)
        ok &= (p >= 10.0 ** (digits - 1)) & (p < 10.0**digits) & (np.abs(p - np.floor(p) - 0.5) > np.spacing(p))
        n = np.rint(p)
        fast = np.copysign(np.where(k >= 0, n / scale, n * scale), values)
    out[ok] = fast[ok]
    slow = ~ok & np.isfinite(values) & (values != 0)
    if slow.any():
        spec = f".{digits}g"
        out[slow] = [float(format(v, spec)) for v in values[slow].tolist()]
    return out


def to_csv_bytes(df: pl.DataFrame) -> bytes:
    """The frame as UTF-8 CSV (header row, ``,`` separated) with formulas neutralised and
    floats rounded to 12 significant digits (:func:`round_floats`).

    Raises
    ------
    CAPInputError
        ``df`` is not a polars DataFrame.
    """
    return neutralise_formulas(round_floats(df)).write_csv().encode("utf-8")


def write_csv(df: pl.DataFrame, path: str | Path) -> Path:
    """Write ``df`` to ``path`` as :func:`to_csv_bytes` does (formulas neutralised); parent folders created.

    The one CSV writer of the project: the CLI outputs and the files of a judging run
    (``failures.csv``) go through it. The file is written whole or not at all
    (:func:`cap_core.outputs.write_file`: a temporary file in the same folder, renamed).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    CAPInputError
        ``df`` is not a polars DataFrame, ``path`` names another format than CSV
        (``.xlsx``, ``.parquet``, …: :func:`cap_core.outputs.check_suffix`), or the file cannot be
        written.
    """
    from cap_core.outputs import check_suffix, write_file

    if not isinstance(path, (str, os.PathLike)):
        raise CAPInputError("the output path is not a path", argument="path", expected="a str or pathlib.Path",
                            got=type(path).__name__, fix="pass the file's path as text or a Path")
    out = Path(path)
    check_suffix(out, "CSV")
    data = to_csv_bytes(df)
    try:
        write_file(out, data)
    except OSError as exc:
        raise CAPInputError("cannot write the output file", file=str(out), got=exc.strerror,
                            fix="choose a writable path") from None
    return out


def to_json_bytes(df: pl.DataFrame) -> bytes:
    """The frame as a UTF-8 JSON array of row objects.

    Nulls become ``null``; numbers stay JSON numbers, floats rounded to 12 significant
    digits as in the CSV (:func:`round_floats`); text is kept exactly, not prefixed (JSON
    is read by programs, not run by spreadsheets).

    Raises
    ------
    CAPInputError
        ``df`` is not a polars DataFrame.
    """
    return round_floats(_frame_iv(df)).write_json().encode("utf-8")
