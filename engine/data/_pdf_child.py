"""The child process that reads the text of PDF files with PDFium (``pypdfium2``), one file per request.

PDFium is a C++ library: a crafted PDF could crash it or run it out of memory, and it must
not be called from two threads at once.  So the explorer's server and the command line never
load it themselves: :mod:`engine.data.documents` starts this script as a child process (with
``runpy``, so the child imports neither ``engine`` nor numba), caps its memory, sends it the
files' bytes and kills it when one takes too long.

Protocol (binary, on the child's stdin and stdout): each request is an 8-byte big-endian
length and that many bytes of a PDF; a length of 0 ends the child.  Each answer is an 8-byte
length and that many bytes of UTF-8 JSON: ``{"pages": [text of page 1, ...]}`` or
``{"error": "password" | "broken" | "memory" | "missing", "detail": "..."}`` ("missing": pypdfium2
cannot be imported).  The first command-line argument is
the most bytes of memory the child may map (0: no cap).
"""

import json
import struct
import sys

_LENGTH = struct.Struct(">Q")


def _cap_memory(limit: int) -> None:
    if limit <= 0:
        return
    try:
        import resource
    except ImportError:  # not on Windows: no cap there
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or limit < hard:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _read_exactly(stream, n: int) -> bytes:
    parts, left = [], n
    while left:
        part = stream.read(left)
        if not part:
            raise EOFError
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _pages(pdfium, data: bytes) -> dict:
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        kind = "password" if getattr(exc, "err_code", None) == 4 else "broken"
        return {"error": kind, "detail": str(exc)}
    pages = []
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            try:
                pages.append(textpage.get_text_range())
            finally:
                textpage.close()
                page.close()
    except pdfium.PdfiumError as exc:
        return {"error": "broken", "detail": f"page {len(pages) + 1}: {exc}"}
    finally:
        document.close()
    return {"pages": pages}


def main() -> None:
    _cap_memory(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:  # every request is answered with why
        pdfium, missing = None, f"{type(exc).__name__}: {exc}"
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            (n,) = _LENGTH.unpack(_read_exactly(stdin, _LENGTH.size))
            if n == 0:
                return
            data = _read_exactly(stdin, n)
        except EOFError:
            return
        try:
            answer = {"error": "missing", "detail": missing} if pdfium is None else _pages(pdfium, data)
        except MemoryError:
            answer = {"error": "memory", "detail": "it needs more memory than the reader may use"}
        reply = json.dumps(answer, ensure_ascii=False).encode("utf-8", "surrogatepass")
        stdout.write(_LENGTH.pack(len(reply)) + reply)
        stdout.flush()


if __name__ == "__main__":
    main()
