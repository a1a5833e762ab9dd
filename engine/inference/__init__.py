"""Inference: the step-size schedule, the SVI and batch loops, held-out evaluation, coherence, training runs."""
