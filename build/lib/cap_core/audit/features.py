"""Surface features for the label-set audit: what a construct-blind predictor may see.

The three predictors follow Table 9 of *A Judge Should Know What Changed: Construct
Validity for LLM-as-a-Judge Evaluation* (Chen, Chen, Lin, Vong, 2026; "Validity"
below). Each sees a fixed surface summary of one response and nothing else:

``length_only``
    The response length in characters (as ``log1p(chars)``, one column).
``numeric_surface``
    Counts of digits, punctuation, upper- and lower-case letters, whitespace, line
    breaks, all-caps tokens and capitalised tokens (``log1p`` each), plus the shares of
    digits, punctuation and upper-case among the characters: 11 columns, no word.
``surface_ngram``
    Character 1- to 4-grams hashed into 2**14 buckets with scikit-learn's
    ``HashingVectorizer(analyzer="char")``, sublinear TF-IDF weighted, then compressed
    to :data:`NGRAM_DIMS` dense columns by a truncated SVD. The SVD is fitted once per
    label set on the response texts only (never the labels), so no label information
    crosses folds; it keeps the permutation null affordable (each refit is a small dense
    logistic regression instead of a 16k-column sparse one). The compression loses some
    specific n-grams, so this predictor is a lower bound on what character n-grams
    recover: on RewardBench paired mode a logistic regression on the full sparse
    TF-IDF reaches about 73% against about 68% here (``bench/bench_audit.py`` prints both).

All features of a label set are computed once (:func:`unit_features`) and reused by
every fold and every permutation.
"""

from __future__ import annotations

import re

import numpy as np
from scipy import sparse
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer

from cap_core.errors import CAPInputError

__all__ = ["PREDICTORS", "NGRAM_DIMS", "NGRAM_BUCKETS", "length_features", "numeric_surface_features",
           "hashed_ngrams", "ngram_features", "unit_features", "paired_design"]

#: Predictor names in display order (Validity Table 9).
PREDICTORS: tuple[str, ...] = ("length_only", "numeric_surface", "surface_ngram")
#: Hash buckets for character n-grams and dense dimensions kept after the SVD.
NGRAM_BUCKETS = 2**14
NGRAM_DIMS = 64



def _texts_iv(texts) -> list[str]:
    if isinstance(texts, str) or not hasattr(texts, "__len__"):
        raise CAPInputError("texts must be a list of strings", got=type(texts).__name__,
                            fix="pass one string per response")
    out = list(texts)
    for i, t in enumerate(out, start=1):
        if not isinstance(t, str):
            raise CAPInputError("a response text is not a string", row=i, got=t, fix="give every response as text")
    return out


def length_features(texts) -> np.ndarray:
    """``log1p`` of the length in characters; array of shape (n, 1), float64."""
    texts = _texts_iv(texts)
    return np.log1p(np.fromiter((len(t) for t in texts), dtype=np.float64, count=len(texts)))[:, None]


_ALLCAPS = re.compile(r"\b[A-Z]{2,}\b")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]")
_ASCII_PUNCT = np.zeros(128, dtype=bool)
_ASCII_PUNCT[[ord(c) for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"]] = True


def _class_counts(texts: list[str]) -> np.ndarray:
    """Per-text counts of ASCII character classes, shape (n, 6), in one vectorised pass."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    doc = np.repeat(np.arange(len(texts)), lengths)
    ascii_code = np.where(codes < 128, codes, 0)
    classes = (
        (codes >= 48) & (codes <= 57),
        _ASCII_PUNCT[ascii_code] & (codes < 128),
        (codes >= 65) & (codes <= 90),
        (codes >= 97) & (codes <= 122),
        (codes == 32) | (codes == 9) | (codes == 10) | (codes == 13),
        codes == 10,
    )
    return np.column_stack([np.bincount(doc, weights=c, minlength=len(texts)) for c in classes])


def numeric_surface_features(texts) -> np.ndarray:
    """Digit, punctuation and casing counts; array of shape (n, 11), float64.

    Columns: ``log1p`` of the counts of ASCII digits, ASCII punctuation marks, upper-case
    letters, lower-case letters, whitespace (space, tab, CR, LF), line breaks, all-caps
    tokens (two or more capitals) and capitalised tokens, then the shares (fractions
    0-1) of digits, punctuation and upper-case letters among all characters.
    """
    texts = _texts_iv(texts)
    if not texts:
        return np.empty((0, 11))
    tokens = np.array([(len(_ALLCAPS.findall(t)), len(_CAPITALISED.findall(t))) for t in texts], dtype=np.float64)
    counts = np.hstack([_class_counts(texts), tokens])
    chars = np.maximum(np.fromiter((len(t) for t in texts), dtype=np.float64, count=len(texts)), 1.0)
    shares = counts[:, [0, 1, 2]] / chars[:, None]
    return np.hstack([np.log1p(counts), shares])


_WHITE_SPACES = HashingVectorizer._white_spaces  # scikit-learn's whitespace rule of its char analyzer


def _dense_ids(key: np.ndarray, size: int, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relabel integer keys (all < ``size``) as 0..u-1 in key order; also one position (from ``pos``) per id."""
    if size <= 8 * key.size + 4096:  # a lookup table is cheaper than sorting
        seen = np.zeros(size, dtype=bool)
        seen[key] = True
        present = np.flatnonzero(seen)
        lut = np.empty(size, dtype=np.int32)
        lut[present] = np.arange(present.size, dtype=np.int32)
        ids = lut[key].astype(np.int64)
        where = np.empty(present.size, dtype=np.int64)
        where[ids] = pos[:key.size]
        return ids, where
    _, where, ids = np.unique(key, return_index=True, return_inverse=True)
    return ids.ravel(), where


def hashed_ngrams(texts) -> sparse.csr_matrix:
    """Character 1-4-gram counts hashed into :data:`NGRAM_BUCKETS` columns (sparse, (n, 2**14), float64).

    The matrix of scikit-learn's ``HashingVectorizer(analyzer="char", ngram_range=(1, 4),
    n_features=2**14, alternate_sign=False, norm=None, lowercase=False).transform(texts)``,
    entry for entry (``tests/cap_core/audit/test_features.py``): runs of two or more
    whitespace characters become one space, every substring of 1 to 4 characters of a
    text is an n-gram, and its bucket is scikit-learn's ``FeatureHasher`` hash of it.
    Computed faster: the n-grams are numbered in numpy (each n-gram's number from the
    (n-1)-gram's and the next character's), each *distinct* n-gram is hashed once by
    ``FeatureHasher`` and the counts per text and bucket are summed with ``bincount``,
    instead of building and hashing one Python string per occurrence (about 15 million on
    RewardBench).
    """
    texts = _texts_iv(texts)
    norm = [_WHITE_SPACES.sub(" ", t) for t in texts]
    lengths = np.fromiter((len(t) for t in norm), dtype=np.int64, count=len(norm))
    joined = "".join(norm)
    total, n_docs = len(joined), len(norm)
    hasher = FeatureHasher(n_features=NGRAM_BUCKETS, input_type="string", alternate_sign=False)
    pos = np.arange(total, dtype=np.int64)
    char_id, _ = _dense_ids(np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32), 0x110000, pos)
    n_chars = int(char_id.max()) + 1 if total else 0
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    end = np.repeat(np.cumsum(lengths), lengths)  # where each character's text ends
    parts = []  # (text, bucket) of every n-gram occurrence, per n in text order
    ids = n_ids = None
    for n in range(1, 5):
        m = total - n + 1
        if m <= 0:
            break
        ids, where = _dense_ids(char_id if n == 1 else ids[:m] * n_chars + char_id[n - 1:], (n_ids or 1) * n_chars,
                                pos)
        n_ids = where.size
        grams = [joined[s:s + n] for s in where.tolist()]  # one occurrence of each distinct n-gram
        bucket = hasher.transform([g] for g in grams).indices if grams else np.zeros(0, dtype=np.int32)
        inside = pos[:m] + n <= end[:m]  # n-grams that do not cross into the next text
        parts.append((doc[:m][inside], bucket[ids[inside]].astype(np.int64)))
    block = max(1, (1 << 22) // NGRAM_BUCKETS)  # texts per bincount, ~4M cells
    cuts = np.arange(0, n_docs + block, block)
    bounds = [np.searchsorted(d, cuts) for d, _ in parts]
    data, indices, per_row = [], [], np.zeros(n_docs, dtype=np.int64)
    for j, start in enumerate(range(0, n_docs, block)):
        stop = min(n_docs, start + block)
        key = np.concatenate([(d[b[j]:b[j + 1]] - start) * NGRAM_BUCKETS + c[b[j]:b[j + 1]]
                              for (d, c), b in zip(parts, bounds)] or [np.zeros(0, dtype=np.int64)])
        counts = np.bincount(key, minlength=(stop - start) * NGRAM_BUCKETS)
        cell = np.flatnonzero(counts)
        data.append(counts[cell].astype(np.float64))
        indices.append((cell % NGRAM_BUCKETS).astype(np.int32))
        per_row[start:stop] = np.bincount(cell // NGRAM_BUCKETS, minlength=stop - start)
    return sparse.csr_matrix((np.concatenate(data or [np.zeros(0)]), np.concatenate(indices or [np.zeros(0, np.int32)]),
                              np.r_[0, np.cumsum(per_row)]), shape=(n_docs, NGRAM_BUCKETS))


def ngram_features(texts, *, dims: int = NGRAM_DIMS, seed: int = 0) -> np.ndarray:
    """Dense n-gram summary: hashed counts -> sublinear TF-IDF -> truncated SVD.

    Returns
    -------
    numpy.ndarray
        Shape (n, k) float64 with ``k = min(dims, n - 1, 2**14 - 1)``; no labels used.
    """
    texts = _texts_iv(texts)
    weighted = TfidfTransformer(sublinear_tf=True).fit_transform(hashed_ngrams(texts))
    k = max(1, min(dims, weighted.shape[0] - 1, NGRAM_BUCKETS - 1))
    svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=3, random_state=seed)
    # the SVD works on the transpose (fewer texts than buckets); handing it CSC makes that transpose CSR,
    # whose products with dense blocks are faster: same numbers, about 40% less time
    return svd.fit_transform(weighted.tocsc())


def _standardise(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def unit_features(texts, *, seed: int = 0, predictors=PREDICTORS) -> dict[str, np.ndarray]:
    """The predictors' features for a list of responses, standardised per column.

    Parameters
    ----------
    texts : sequence of str
        One text per response, length n.
    seed : int
        Seed of the randomized SVD.
    predictors : sequence of str, default all of :data:`PREDICTORS`
        Which predictors' features to compute.

    Returns
    -------
    dict
        ``{"length_only": (n, 1), "numeric_surface": (n, 11), "surface_ngram": (n, k)}``
        (the keys asked for), float64, each column centred and scaled to unit variance
        over the n responses (label-free, so it may use every response).
    """
    texts = _texts_iv(texts)
    build = {"length_only": length_features, "numeric_surface": numeric_surface_features,
             "surface_ngram": lambda t: ngram_features(t, seed=seed)}
    return {name: _standardise(build[name](texts)) for name in PREDICTORS if name in set(predictors)}


def paired_design(feat: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Paired-mode design: left minus right feature row of each pair.

    With the sides shuffled, swapping them must turn P(left better) into
    1 - P(left better); for a logistic model that forces the form
    ``w . (f_left - f_right)`` with no intercept, so the difference carries everything a
    linear model of both rows could use (fit it with ``fit_intercept=False``).

    Parameters
    ----------
    feat : ndarray, shape (n_responses, d)
    left, right : ndarray of int, shape (n_pairs,)
        Row indices of the response shown on the left / right of each pair.

    Returns
    -------
    ndarray, shape (n_pairs, d)
    """
    return feat[left] - feat[right]
