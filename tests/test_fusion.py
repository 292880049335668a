import pytest

from scree.search.fusion import collapse, rrf, rrf_grouped


def test_item_ranked_by_both_halves_beats_one_ranked_first_by_one():
    fused = rrf([["a", "b", "c"], ["b", "d", "a"]])
    assert [k for k, _ in fused][:2] == ["b", "a"]
    assert dict(fused)["b"] == 1 / 62 + 1 / 61


def test_single_list_keeps_its_order_and_empty_lists_are_fine():
    assert [k for k, _ in rrf([["x", "y"], []])] == ["x", "y"]
    assert rrf([]) == []


def test_a_weighted_list_outranks_an_equal_rank_in_the_other():
    fused = rrf([["s"], ["k"]], weights=[0.8, 1.2])
    assert [k for k, _ in fused] == ["k", "s"]
    assert dict(fused)["k"] == pytest.approx(1.2 / 61)


def test_weights_sum_to_two_score_a_double_first_like_plain_rrf():
    assert dict(rrf([["a"], ["a"]], weights=[0.8, 1.2]))["a"] == pytest.approx(2 / 61)


def test_one_weight_per_ranking_is_required():
    with pytest.raises(ValueError, match="one weight per ranking"):
        rrf([["a"], ["b"]], weights=[1.0])


def test_collapse_keeps_the_first_item_of_each_group_in_order():
    assert collapse(["a1", "b1", "a2", "c1", "b2"], lambda s: s[0]) == ["a1", "b1", "c1"]


def test_a_section_counts_once_per_list_and_is_answered_by_its_best_chunk():
    # a1 and a2 are chunks of section a: a2 must not push b down in the first list, and the two halves
    # ranking different chunks of a still add up for a.
    fused = rrf_grouped([["a1", "a2", "b1"], ["a2", "c1"]], group=lambda s: s[0])
    assert [item for item, _ in fused] == ["a1", "b1", "c1"]
    assert dict(fused)["a1"] == pytest.approx(2 / 61)
    assert dict(fused)["b1"] == pytest.approx(1 / 62)


def test_a_group_split_across_lists_takes_its_best_ranked_chunk():
    fused = rrf_grouped([["x1", "a2"], ["a1"]], group=lambda s: s[0])
    assert [item for item, _ in fused] == ["a1", "x1"]  # a: 1/62 + 1/61 beats x: 1/61


def _dbsf(rankings, weights=(1.0, 1.0)):
    from scree.search.fusion import dbsf

    return dbsf(rankings, group=lambda s: s[0], weights=weights)


def test_dbsf_a_sure_first_place_beats_a_first_place_among_equals():
    # The keyword half is sure of k1 (far above its other scores); the semantic half's scores are all
    # alike. RRF would tie the two first places; DBSF ranks the sure one first.
    sem = [(f"s{i}", 0.55 - 0.005 * i) for i in range(10)]
    kw = [(f"k{i}", score) for i, score in enumerate([30.0, 3, 3, 2, 2, 2, 1, 1, 1, 1])]
    from scree.search.fusion import dbsf

    fused = dbsf([sem, kw], group=lambda s: s, weights=(1.0, 1.0))
    assert fused[0][0] == "k0" and fused[0][1] > fused[1][1]


def test_dbsf_rewards_what_both_halves_rank_high_and_counts_a_group_once_per_list():
    sem = [("a1", 0.9), ("a2", 0.85), ("b1", 0.5), ("c1", 0.4)]
    kw = [("b1", 10.0), ("a2", 9.0), ("c1", 1.0)]
    fused = _dbsf([sem, kw])
    assert [item[0] for item, _ in fused] == ["a", "b", "c"]
    assert len(fused) == 3  # a1 and a2 are one section


def test_dbsf_weights_tilt_the_order_and_must_match_the_lists():
    sem, kw = [("s1", 1.0), ("s2", 0.0)], [("k1", 1.0), ("k2", 0.0)]
    assert _dbsf([sem, kw], weights=(1.2, 0.8))[0][0] == "s1"
    assert _dbsf([sem, kw], weights=(0.8, 1.2))[0][0] == "k1"
    with pytest.raises(ValueError, match="one weight per ranking"):
        _dbsf([sem, kw], weights=(1.0,))


def test_dbsf_handles_empty_lists_and_lists_of_equal_scores():
    assert _dbsf([[], []]) == []
    fused = _dbsf([[("x1", 0.5), ("y1", 0.5)], []])
    assert [item for item, _ in fused] == ["x1", "y1"]  # no spread: every item scaled 1, order kept


# ----- mid stage two: some items have no vectors yet -----------------------------------------------

from scree.search.fusion import dbsf, dbsf_imputed, keep_places  # noqa: E402


def _ids(ranked):
    return [item for item, _ in ranked]


def test_an_item_without_vectors_keeps_its_keyword_place_and_the_vectors_reorder_the_rest():
    keyword = [("a", 9.0), ("u", 8.0), ("b", 7.0), ("c", 6.0)]  # u has no vectors
    fused = [("c", 1.9), ("b", 1.5), ("a", 1.2), ("u", 0.6)]  # what a plain fusion makes of it
    out = keep_places(fused, keyword, lambda x: x, held={"u"})
    assert _ids(out) == ["c", "u", "b", "a"]
    assert dict(out) == dict(fused)  # places change, scores do not


def test_keep_places_appends_what_only_the_vectors_found_and_reduces_to_either_half():
    keyword = [("u", 3.0), ("a", 2.0)]
    fused = [("s", 2.0), ("a", 1.4), ("u", 0.8)]  # s: found by the vectors alone
    assert _ids(keep_places(fused, keyword, lambda x: x, held={"u"})) == ["u", "s", "a"]
    assert _ids(keep_places(fused, keyword, lambda x: x, held=set())) == ["s", "a", "u"]
    assert _ids(keep_places(fused, [], lambda x: x, held=set())) == ["s", "a", "u"]


def test_imputing_gives_an_item_without_vectors_its_keyword_scale_for_the_semantic_half():
    semantic = [("a", 0.9), ("b", 0.5), ("c", 0.4)]
    keyword = [("u", 9.0), ("a", 5.0), ("b", 1.0)]
    plain = dbsf([semantic, keyword], lambda x: x, (1.2, 0.8))
    imputed = dbsf_imputed(semantic, keyword, lambda x: x, (1.2, 0.8), held={"u"})
    assert _ids(plain)[0] == "a" and _ids(imputed)[0] == "u"
    assert dict(imputed)["a"] == pytest.approx(dict(plain)["a"])
