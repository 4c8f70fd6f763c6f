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
infinities and nulls are left as they are.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["FORMULA_PREFIXES", "SIGNIFICANT_DIGITS", "neutralise_formulas", "round_floats", "to_csv_bytes",
           "to_json_bytes", "write_csv"]

#: Leading characters that make a spreadsheet treat a text cell as a formula.
FORMULA_PREFIXES: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$"  # "-5", "+1.5e3": a number, not a formula
#: Significant digits kept in exported floats (float noise removal; see the module notes).
SIGNIFICANT_DIGITS = 12


def _frame_iv(df: object) -> pl.DataFrame:
    if not isinstance(df, pl.DataFrame):
        raise CAPInputError(
            "`df` must be a polars DataFrame",
            expected="polars.DataFrame",
            got=type(df).__name__,
            fix="export the table shown in the dashboard",
        )
    return df


def _quote(col: str) -> pl.Expr:
    c = pl.col(col)
    trimmed = c.str.strip_chars_start()  # spaces and line breaks before "=" still run it
    starts = pl.any_horizontal(
        [c.str.starts_with(p) for p in FORMULA_PREFIXES] + [trimmed.str.starts_with(p) for p in "=+-@"]
    ) & ~c.str.contains(_PLAIN_NUMBER)
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
    exprs = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.List):
            df = df.with_columns(pl.col(name).cast(pl.List(pl.String)).list.join("; "))
            dtype = pl.String
        if dtype == pl.String:
            exprs.append(_quote(name))
    return df.with_columns(exprs) if exprs else df


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
    return df.with_columns(pl.col(c).round_sig_figs(digits) for c in cols) if cols else df


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
        ``df`` is not a polars DataFrame, or the file cannot be written.
    """
    from cap_core.outputs import write_file

    data = to_csv_bytes(df)
    out = Path(path)
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
