"""Broad research fields and the narrower words that place a paper in one.

A paper whose title or keywords say "image", "object detection" or "video" works in computer vision
even when it never writes those words; a theme mixing such papers can be named by its field instead of by
whichever narrow phrase happens to be most frequent. A field is only a candidate label when members write it
as a keyword, and it wins only by the same score as any other phrase, so in a venue where every paper is about
images ("computer vision" is then not distinctive) narrower labels still win. fidelity.py reads the table.
"""

from __future__ import annotations

# A field's name as authors write it → phrases implying it (matched as stemmed words in order).
FIELDS: dict[str, tuple[str, ...]] = {
    "computer vision": (
        "vision",
        "image",
        "video",
        "object detection",
        "semantic segmentation",
        "instance segmentation",
        "pixel",
        "cnn",
        "face recognition",
        "pose estimation",
        "optical flow",
        "depth estimation",
    ),
    "natural language processing": (
        "nlp",
        "natural language",
        "language model",
        "machine translation",
        "question answering",
        "text",
        "summarization",
        "dialogue",
        "word embedding",
        "sentence",
        "named entity",
    ),
    "speech": ("speech", "audio", "speaker", "asr", "spoken"),
    "robotics": ("robot", "manipulation", "grasping", "locomotion"),
}
