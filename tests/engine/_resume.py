"""A training run checkpointed to disk and continued from the file, as the app and the CLI resume one."""

from __future__ import annotations

import engine


def resume_from_checkpoint(model, trainer: engine.SVI, X, path, total_docs: int, batch_size: int):
    """Save ``model`` with its ``trainer`` at ``path``, load the file and train on ``X`` until ``total_docs``.

    Checks that the loaded model carries the saved training clock; returns the loaded model.
    """
    engine.save_model(path, model, trainer=trainer)
    loaded = engine.load_model(path)
    assert loaded.model.training_clock() == model.training_clock()
    resumed = engine.SVI(loaded.model, X, batch_size=batch_size)
    resumed.load_state_dict(loaded.trainer_state)
    resumed.run(n_docs=total_docs - trainer.docs_seen)
    return loaded.model
