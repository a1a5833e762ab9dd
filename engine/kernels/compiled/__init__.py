"""The numba local steps and row kernels: the fast path, tested against :mod:`engine.kernels.reference`."""
