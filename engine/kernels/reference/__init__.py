"""The NumPy reference local steps: the paper's equations written plainly.

The compiled kernels in :mod:`engine.kernels.compiled` are tested against them.
"""
