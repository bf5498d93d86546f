"""Summaries: per-paper TL;DRs (author, extractive, or an optional LLM) and the verifier of reports."""

from confnav.summarize.tldr import ExtractiveSummarizer, Tldr, extractive_tldr, is_self_contained

__all__ = ["ExtractiveSummarizer", "Tldr", "extractive_tldr", "is_self_contained"]
