from scree.fusion import rrf


def test_item_ranked_by_both_halves_beats_one_ranked_first_by_one():
    fused = rrf([["a", "b", "c"], ["b", "d", "a"]])
    assert [k for k, _ in fused][:2] == ["b", "a"]
    assert dict(fused)["b"] == 1 / 62 + 1 / 61


def test_single_list_keeps_its_order_and_empty_lists_are_fine():
    assert [k for k, _ in rrf([["x", "y"], []])] == ["x", "y"]
    assert rrf([]) == []
