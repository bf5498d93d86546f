"""Summaries: per-paper TL;DRs (author, extractive, or an optional LLM) and the verifier of reports."""

from confnav.summarize.base import SUMMARIZERS, Summarizer
from confnav.summarize.llm import LLMSummarizer
from confnav.summarize.tldr import ExtractiveSummarizer, Tldr, extractive_tldr, is_self_contained

__all__ = [
    "SUMMARIZERS",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "Tldr",
    "extractive_tldr",
    "is_self_contained",
]
