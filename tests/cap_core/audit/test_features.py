"""Surface features of the audit: the fast hashed n-grams are scikit-learn's, entry for entry."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer

from cap_core.audit.features import NGRAM_BUCKETS, hashed_ngrams, unit_features
from cap_core.importers.label_sets import load_label_set

EDGE_TEXTS = ["", "a", "ab", "abc", "  \n\n x\t\ty  ", "tab\tonly\none", "é😀\u00a0\u00a0z", "ЖЖЖ жж", "a" * 50,
              "mixed 123 !!! UPPER lower", "\u2028line\u2029sep", "x"]


def _sklearn(texts):
    return HashingVectorizer(analyzer="char", ngram_range=(1, 4), n_features=NGRAM_BUCKETS, alternate_sign=False,
                             norm=None, lowercase=False).transform(texts)


@pytest.mark.parametrize("name", ["LLMBar Natural", "EvalBiasBench"])
def test_hashed_ngrams_equal_sklearns_hashing_vectorizer_on_real_texts(shared_dir, name):
    ls = load_label_set(name, public_data=shared_dir)
    texts = [t for ab in zip(ls.pairs["response_a"], ls.pairs["response_b"]) for t in ab] + EDGE_TEXTS
    ours, ref = hashed_ngrams(texts), _sklearn(texts)
    assert ours.shape == ref.shape == (len(texts), NGRAM_BUCKETS)
    assert (ours != ref).nnz == 0
    assert np.array_equal(ours.indptr, ref.indptr) and np.array_equal(ours.indices, ref.indices)
    assert ours.dtype == np.float64 and ours.has_sorted_indices


def test_hashed_ngrams_of_no_or_empty_texts():
    assert hashed_ngrams([]).shape == (0, NGRAM_BUCKETS)
    assert hashed_ngrams(["", ""]).nnz == 0
    # "aa": unigram "a" twice, bigram "aa" once
    x = hashed_ngrams(["aa"])
    assert sorted(x.data.tolist()) == sorted(_sklearn(["aa"]).data.tolist()) == [1.0, 2.0]


def test_unit_features_of_some_predictors():
    texts = ["short", "a longer text with Words", "MORE CAPS here 42"]
    some = unit_features(texts, predictors=("length_only",))
    assert list(some) == ["length_only"]
    np.testing.assert_array_equal(some["length_only"], unit_features(texts)["length_only"])
