"""Collection pauses nest and restore the collector's state."""

import gc

from confnav.gc_pause import collection_paused


def test_nested_pauses_resume_collection_at_the_end() -> None:
    assert gc.isenabled()
    with collection_paused():
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
