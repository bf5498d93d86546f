"""Reports: the `Report` model, its builders (overview, digest, statistics), rendering and verification."""
