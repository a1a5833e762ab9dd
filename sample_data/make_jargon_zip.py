"""Zip a folder of Jargon File entries (one .txt per entry) into sample_data/jargon_file.zip.

    python sample_data/make_jargon_zip.py JARGON_DOCS_DIR [OUT_ZIP]

JARGON_DOCS_DIR is the docs/ folder built by build_jargon.py (see PROVENANCE.md).  Entries
are stored as jargon_file/<name>.txt in sorted order with a fixed timestamp, so the same
input gives a byte-identical archive.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

# The date of Jargon File version 4.4.7, used as every entry's modification time.
TIMESTAMP = (2003, 12, 29, 0, 0, 0)
DEFAULT_OUT = Path(__file__).resolve().parent / "jargon_file.zip"


def build(docs_dir: Path, out_zip: Path) -> int:
    """Write the archive; return the number of entries."""
    files = sorted(docs_dir.glob("*.txt"))
    if not files:
        raise SystemExit(f"no .txt files in {docs_dir}")
    with zipfile.ZipFile(out_zip, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in files:
            info = zipfile.ZipInfo(f"jargon_file/{path.name}", date_time=TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), compresslevel=9)
    return len(files)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    out = Path(sys.argv[2]) if len(sys.argv) == 3 else DEFAULT_OUT
    n = build(Path(sys.argv[1]), out)
    print(f"wrote {n} entries to {out}")
