"""Broad research fields and the narrower words that place a paper in one.

A paper whose title or keywords say "image", "object detection" or "video" works in computer vision
even when it never writes those words; a theme mixing such papers is named by its field instead of by
whichever narrow phrase happens to be most frequent ("data augmentation" for the cluster of ViT,
Deformable DETR and LambdaNetworks). A field is only a candidate label when members write it as a keyword,
and it wins only by the same score as any other phrase, so in a venue where every paper is about images
("computer vision" is then not distinctive) narrower labels still win.
"""

from __future__ import annotations

from confnav.search.text import stem, words

# A field's name as authors write it → phrases implying it (matched as stemmed words in order).
FIELDS: dict[str, tuple[str, ...]] = {
    "computer vision": (
        "vision", "image", "video", "object detection", "semantic segmentation", "instance segmentation", "pixel",
        "cnn", "face recognition", "pose estimation", "optical flow", "depth estimation",
    ),
    "natural language processing": (
        "nlp", "natural language", "language model", "machine translation", "question answering", "text",
        "summarization", "dialogue", "word embedding", "sentence", "named entity",
    ),
    "speech": ("speech", "audio", "speaker", "asr", "spoken"),
    "robotics": ("robot", "manipulation", "grasping", "locomotion"),
}  # fmt: skip


def _key(phrase: str) -> str:
    return " ".join(stem(w) for w in words(phrase))


FIELD_KEYS: dict[str, tuple[str, ...]] = {_key(f): tuple(_key(p) for p in phrases) for f, phrases in FIELDS.items()}


def implied_by(key: str) -> tuple[str, ...]:
    """The stemmed phrases that imply the field with this stemmed name (none for a phrase that is no field)."""
    return FIELD_KEYS.get(key, ())
