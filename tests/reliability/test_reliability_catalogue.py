"""The catalogue of hostile inputs and faults that were already handled well before issue 15.

Each line below imports the test that pins one case where it lives (beside the code it
tests), so ``pytest tests/reliability`` replays the whole catalogue (this module and the
issue's new cases in the other ``test_reliability_*`` modules) without copying a test.
An import that breaks (a test renamed or removed) fails this module at collection.
"""

from __future__ import annotations

from tests.engine.test_bow_formats import test_empty_documents_are_reported  # noqa: F401  empty documents
from tests.engine.test_corpus import test_from_texts_empty_inputs  # noqa: F401  no documents at all
from tests.engine.test_lda import test_invalid_model_arguments_are_rejected  # noqa: F401  every bad hyperparameter
from tests.engine.test_persistence import test_pickled_objects_are_never_loaded  # noqa: F401  pickles never unpickled
from tests.engine.test_svi import (
    planted_x,  # noqa: F401  the fixture "X" the next test takes
    test_invalid_trainer_settings_are_rejected,  # noqa: F401  kappa, tau, S out of range
)
from tests.engine.test_textio import (  # noqa: F401
    test_decode_text_rejects_nul_bytes_naming_the_file,  # NUL bytes
    test_read_folder_binary_txt_is_reported_by_name,  # a binary file named .txt
    test_read_zip_forged_size_or_corrupt_data_is_a_format_error,  # forged sizes, corrupt streams
    test_read_zip_rejects_large_declared_total,  # zip bomb of .txt
    test_read_zip_rejects_unsafe_paths,  # zip slip: absolute and '..' entries
)
from tests.explorer.test_uploads import test_bad_uploads_say_what_is_wrong  # noqa: F401  encrypted, nested, binary
