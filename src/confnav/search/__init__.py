"""Search: BM25F and vector scores fused, the query language, snippets and the `Searcher`."""
