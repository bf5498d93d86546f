"""Questions answered from the store: retrieved papers, grouped and cited, counts from the store, and, with an LLM
configured, prose checked sentence by sentence (see compose.py and written.py)."""

from confnav.answer.compose import ask
from confnav.answer.model import DOES_NOT_SAY, Answer

__all__ = ["DOES_NOT_SAY", "Answer", "ask"]
