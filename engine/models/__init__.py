"""The models: LDA and the HDP topic model, their expectations and the lazily decayed topic store.

A model holds the global variational parameters (lambda_, and for the HDP the corpus
sticks) and knows its own local step (through :mod:`engine.kernels`) and global step
(:meth:`LazyTopics.blend`).  The SVI loop that drives them lives in :mod:`engine.inference`;
``fit`` and ``partial_fit``, the scikit-learn face of the models (``_estimator.py``), call it.
"""
