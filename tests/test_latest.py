"""Values kept for the newest state only: a new state of a key replaces the old value, whatever the size bound."""

from __future__ import annotations

from confnav.latest import LatestPerKey


def test_a_new_state_replaces_the_old_value_and_the_least_used_key_goes_first() -> None:
    kept: LatestPerKey[int, str] = LatestPerKey(2)
    kept.put("iclr2021", 1, "vectors at 1")
    kept.put("iclr2021", 2, "vectors at 2")
    assert len(kept) == 1 and kept.get("iclr2021", 1) is None and kept.get("iclr2021", 2) == "vectors at 2"
    kept.put("corl2023", 7, "corl")
    assert kept.get("iclr2021", 2) == "vectors at 2"  # now the most recently used
    kept.put("cvpr2019", 1, "cvpr")
    assert kept.get("corl2023", 7) is None and kept.get("cvpr2019", 1) == "cvpr" and len(kept) == 2
