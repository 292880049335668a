import pytest

from scree.fusion import collapse, rrf, rrf_grouped


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
