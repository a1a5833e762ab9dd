"""Streamlit explorer of topic models trained by stochastic variational inference.

Run it with ``streamlit run explorer/app.py``.  The numerical work is done by the
``engine`` package; this package only shows it.
"""
