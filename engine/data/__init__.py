"""Collections: the in-memory Corpus, text readers, bag-of-words formats, the on-disk corpus, synthetic corpora."""
